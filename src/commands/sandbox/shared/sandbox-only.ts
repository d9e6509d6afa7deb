// A call to an endpoint only the sandbox has (the triggers, the webhook deliveries): a 404 there
// means the profile points at the service, not at a sandbox, and says so in the user's terms.

import type { ApiClient } from '../../../api/http.js';
import { NotFoundError } from '../../../errors.js';

/** Runs a call to a sandbox-only endpoint; a 404 there means the profile is not a sandbox. */
export async function sandboxOnly<T>(api: ApiClient, command: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // "Message X was not found" is the sandbox answering about a resource; any other 404 means
    // the endpoint itself is missing.
    if (error instanceof NotFoundError && !/was not found/.test(error.message)) {
      throw new NotFoundError(`${api.baseUrl} has no sandbox endpoint (${error.message}): ${command} works only against a sandbox (svc sandbox start)`, {
        status: 404,
        ...(error.errorCode !== undefined ? { errorCode: error.errorCode } : {}),
      });
    }
    throw error;
  }
}
