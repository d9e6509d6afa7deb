// HTTP Basic authentication with the document's three 401 answers. The caller's email is its
// owner identity. Checked headers are cached so that the hot path does not decode Base64 and
// compare passwords on every request.

import { createHash, timingSafeEqual } from 'node:crypto';
import { ApiError } from './errors.js';
import { SANDBOX_DEFAULT_USER } from '../domain/sandbox-defaults.js';

export interface SandboxUser {
  email: string;
  password: string;
}

export const DEFAULT_USER: SandboxUser = { ...SANDBOX_DEFAULT_USER };

const CACHE_LIMIT = 1024;
const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="svc sandbox"' };

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

export class BasicAuthenticator {
  private readonly users = new Map<string, Buffer>();
  private readonly accepted = new Map<string, string>();

  constructor(users: readonly SandboxUser[]) {
    for (const user of users) this.users.set(user.email.toLowerCase(), digest(user.password));
  }

  /** Returns the owner (account email, lower case) for an Authorization header, or throws a 401. */
  authenticate(header: string | undefined): string {
    if (header === undefined || header.trim() === '') {
      throw new ApiError(401, 'MISSING_AUTHORIZATION', 'Authorization header is required', BASIC_CHALLENGE);
    }
    const cached = this.accepted.get(header);
    if (cached !== undefined) return cached;
    const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(header);
    const decoded = match ? Buffer.from(match[1] as string, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (!match || colon <= 0) {
      throw new ApiError(401, 'INVALID_AUTHORIZATION_FORMAT', 'Invalid authorization header format', BASIC_CHALLENGE);
    }
    const email = decoded.slice(0, colon).toLowerCase();
    const expected = this.users.get(email);
    const given = digest(decoded.slice(colon + 1));
    // Compared whether or not the account exists, so that timing does not tell which emails do.
    const ok = timingSafeEqual(given, expected ?? digest('\u0000no-such-user')) && expected !== undefined;
    if (!ok) throw new ApiError(401, 'INVALID_CREDENTIALS', 'Invalid credentials', BASIC_CHALLENGE);
    if (this.accepted.size >= CACHE_LIMIT) this.accepted.clear();
    this.accepted.set(header, email);
    return email;
  }
}
