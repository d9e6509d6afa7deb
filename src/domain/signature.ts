import { createHmac, timingSafeEqual } from 'node:crypto';
import { WEBHOOK_SIGNATURE_KEY } from './webhooks.js';

// X-Svc-Signature: Base64 of HMAC-SHA256 over the raw body bytes, keyed with the UTF-8 secret.

/** Lower case, as Node's server hands headers over. */
export const SIGNATURE_HEADER = WEBHOOK_SIGNATURE_KEY;

export function signBody(body: Uint8Array | string, secret: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('base64');
}

export type VerifyResult =
  | { valid: true; secretIndex: number }
  | { valid: false; reason: 'missing' | 'malformed' | 'mismatch' };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Checks a signature against one secret or several (current and previous, during rotation).
 * The signature is decoded from Base64 and compared as bytes in constant time; anything that
 * is not canonical Base64 of a 32-byte digest is malformed, never a match.
 */
export function verifySignature(
  body: Uint8Array | string,
  signature: string | undefined,
  secrets: string | readonly string[],
): VerifyResult {
  if (signature === undefined || signature.trim() === '') return { valid: false, reason: 'missing' };
  const candidate = signature.trim();
  if (!BASE64.test(candidate)) return { valid: false, reason: 'malformed' };
  const given = Buffer.from(candidate, 'base64');
  if (given.length !== 32) return { valid: false, reason: 'malformed' };
  const list = typeof secrets === 'string' ? [secrets] : secrets;
  let matched = -1;
  // Every secret is checked, so that the time taken does not tell which one matched.
  list.forEach((secret, index) => {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest();
    if (timingSafeEqual(expected, given) && matched < 0) matched = index;
  });
  return matched >= 0 ? { valid: true, secretIndex: matched } : { valid: false, reason: 'mismatch' };
}
