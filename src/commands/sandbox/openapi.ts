import type { Context } from '../../context.js';
import { API_PREFIX } from '../../sandbox/index.js';
import { openApiDocument } from '../../sandbox/openapi.js';
import { SANDBOX_DEFAULT_URL } from '../../domain/sandbox-defaults.js';
import { UsageError } from '../../errors.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';

/** Prints the sandbox's OpenAPI 3.1 document; its server is --base-url, else the default sandbox. */
export async function run(_input: InputFor<typeof sandboxCommands, 'sandbox openapi'>, ctx: Context): Promise<number> {
  const given = ctx.globals.baseUrl;
  let base = SANDBOX_DEFAULT_URL;
  if (given !== undefined) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new UsageError(`--base-url "${given}" is not a URL`);
    }
    base = `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '')}`;
  }
  const document = openApiDocument(`${base}${API_PREFIX}`);
  ctx.io.stdout.write(`${JSON.stringify(document, null, ctx.globals.output === 'ndjson' ? undefined : 2)}\n`);
  return 0;
}
