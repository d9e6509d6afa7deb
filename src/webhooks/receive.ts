// Receiving one webhook request: the checks a production receiver makes before it believes an
// event (Basic auth, content type, size, X-Svc-Signature over the raw bytes, JSON), each failing
// with a Rejection that carries the status to answer.

import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { DELIVERY_HEADER, EVENT_HEADER, classifyEvent, parsePayload } from './payloads.js';
import type { WebhookEventKind, WebhookEventSummary } from './payloads.js';
import { SIGNATURE_HEADER, verifySignature } from '../domain/signature.js';
import type { BasicCredentials } from './types.js';

export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

/** A request refused: the status and reason to answer with. */
export class Rejection extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(reason);
  }
}

export function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}

export function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Compares via digests so that neither length nor content leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

export function checkBasicAuth(headers: IncomingHttpHeaders, expected: BasicCredentials): void {
  const challenge = { 'WWW-Authenticate': 'Basic realm="svc webhook listen", charset="UTF-8"' };
  const authorization = headers.authorization;
  if (authorization === undefined || authorization.trim() === '') {
    throw new Rejection(401, 'Basic credentials missing', challenge);
  }
  const match = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization);
  if (match === null) throw new Rejection(401, 'Authorization header is not in Basic form', challenge);
  const decoded = Buffer.from(match[1] ?? '', 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new Rejection(401, 'Authorization header is not in Basic form', challenge);
  const userMatches = sameSecret(decoded.slice(0, colon), expected.username);
  const passwordMatches = sameSecret(decoded.slice(colon + 1), expected.password);
  if (!userMatches || !passwordMatches) throw new Rejection(401, 'Basic credentials do not match', challenge);
}

export function checkContentType(headers: IncomingHttpHeaders): void {
  const contentType = headers['content-type'];
  if (contentType === undefined || contentType.trim() === '') {
    throw new Rejection(415, 'content type missing (expected application/json)');
  }
  // The common case without splitting.
  if (contentType === 'application/json') return;
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new Rejection(415, `content type ${JSON.stringify(contentType.slice(0, 100))} is not application/json`);
  }
}

export function tooLarge(limit: number): Rejection {
  return new Rejection(413, `body over ${limit} bytes (the limit is ${formatBytes(limit)})`);
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/**
 * Collects the body up to the limit; past it, stops collecting and calls back with a 413
 * Rejection. `done` is called exactly once. The listeners stay on the request (a settled flag
 * silences them): adding and removing five listeners per request was a measurable share of a
 * busy listener's time.
 */
export function collectBody(request: IncomingMessage, limit: number, done: (error: unknown, body: Buffer | null) => void): void {
  let first: Buffer | null = null;
  let chunks: Buffer[] | null = null;
  let total = 0;
  let settled = false;
  request.on('data', (chunk: Buffer) => {
    if (settled) return;
    total += chunk.length;
    if (total > limit) {
      settled = true;
      first = null;
      chunks = null;
      done(tooLarge(limit), null);
      return;
    }
    // One chunk is the common case: no list, no concatenation.
    if (first === null) first = chunk;
    else (chunks ??= [first]).push(chunk);
  });
  request.on('end', () => {
    if (settled) return;
    settled = true;
    done(null, chunks !== null ? Buffer.concat(chunks, total) : (first ?? Buffer.alloc(0)));
  });
  request.on('error', (error: NodeJS.ErrnoException) => {
    if (settled) return;
    settled = true;
    done(error.code === 'ECONNRESET' && !request.complete ? new Error('request aborted by the client') : error, null);
  });
  // A connection cut before the end (the client left, or close() ran out of patience).
  request.on('close', () => {
    if (settled || request.complete) return;
    settled = true;
    done(new Error('request aborted by the client'), null);
  });
}

/** `collectBody` as a promise. */
export function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => collectBody(request, limit, (error, body) => (body !== null ? resolve(body) : reject(error))));
}

// ignoreBOM: a leading BOM stays in the text (a decoder drops it by default), so that the stored
// body, and a replay of it, are the bytes received and signed.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function parseJson(body: Buffer): { raw: string; payload: unknown } {
  let raw: string;
  try {
    raw = utf8.decode(body);
  } catch {
    throw new Rejection(400, 'invalid JSON: the body is not valid UTF-8');
  }
  try {
    return { raw, payload: parsePayload(raw) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Rejection(400, raw.trim() === '' ? 'invalid JSON: the body is empty' : `invalid JSON: ${detail}`);
  }
}

export function signatureReason(reason: 'missing' | 'malformed' | 'mismatch'): string {
  switch (reason) {
    case 'missing':
      return 'signature missing: no X-Svc-Signature header';
    case 'malformed':
      return 'signature malformed: X-Svc-Signature is not Base64 of a 32-byte HMAC-SHA256 digest';
    case 'mismatch':
      return 'signature mismatch: X-Svc-Signature does not match the body under the configured secret';
  }
}

export function errorCodeFor(status: number): string {
  switch (status) {
    case 400:
      return 'INVALID_JSON';
    case 401:
      return 'UNAUTHORIZED';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 413:
      return 'FILE_TOO_LARGE';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 502:
      return 'BAD_GATEWAY';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL_ERROR';
  }
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

/** The delivery id a request names (X-Svc-Delivery), or null. */
export function deliveryIdOf(request: IncomingMessage): string | null {
  const header = headerText(request.headers[DELIVERY_HEADER])?.trim();
  return header === undefined || header === '' ? null : header;
}

export interface ReceiveChecks {
  maxBodyBytes: number;
  secrets?: readonly string[] | undefined;
  basicAuth?: BasicCredentials | undefined;
}

/** The checks with the secrets' keys made once, not once per request. */
export interface PreparedChecks extends ReceiveChecks {
  keys?: readonly Buffer[] | undefined;
}

export function prepareChecks(checks: ReceiveChecks): PreparedChecks {
  return { ...checks, keys: checks.secrets?.map((secret) => Buffer.from(secret, 'utf8')) };
}

/** A POSTed event that passed every check. */
export interface VerifiedEvent {
  body: Buffer;
  raw: string;
  payload: unknown;
  kind: WebhookEventKind;
  summary: WebhookEventSummary;
  eventHeader: string | null;
  secretIndex: number | null;
  /** `delivery:<X-Svc-Delivery>` or `sha256:<hex of the body>`: what tells a retry apart. */
  dedupeKey: string;
}

/** The checks made before the body is read (cheap ones first); throws a Rejection on the first that fails. */
export function checkRequest(request: IncomingMessage, checks: ReceiveChecks): void {
  const method = request.method ?? '?';
  if (method !== 'POST') throw new Rejection(405, `method ${method} not allowed: webhooks are POSTed`, { Allow: 'POST' });
  if (checks.basicAuth !== undefined) checkBasicAuth(request.headers, checks.basicAuth);
  checkContentType(request.headers);
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) > checks.maxBodyBytes) throw tooLarge(checks.maxBodyBytes);
}

/**
 * X-Svc-Signature against the prepared keys. The usual header (canonical Base64 of 32 bytes, 44
 * characters) is decoded and checked here; anything else goes to verifySignature, which says
 * exactly what is wrong with it. Every key is tried, so the time does not tell which one matched.
 */
function checkSignature(body: Buffer, header: string | undefined, checks: PreparedChecks): number | null {
  const { secrets, keys } = checks;
  if (secrets === undefined) return null;
  const candidate = header?.trim();
  if (keys !== undefined && candidate !== undefined && candidate.length === 44) {
    const given = Buffer.from(candidate, 'base64');
    if (given.length === 32 && given.toString('base64') === candidate) {
      let matched = -1;
      for (let i = 0; i < keys.length; i++) {
        const expected = createHmac('sha256', keys[i]!).update(body).digest();
        if (timingSafeEqual(expected, given) && matched < 0) matched = i;
      }
      if (matched >= 0) return matched;
      throw new Rejection(401, signatureReason('mismatch'));
    }
  }
  const verdict = verifySignature(body, candidate, secrets);
  if (!verdict.valid) throw new Rejection(401, signatureReason(verdict.reason));
  return verdict.secretIndex;
}

/** The checks made on the body (signature, JSON) and what the event is; throws a Rejection on the first that fails. */
export function verifyEvent(request: IncomingMessage, body: Buffer, deliveryId: string | null, checks: PreparedChecks): VerifiedEvent {
  const headers = request.headers;
  const secretIndex = checkSignature(body, headerText(headers[SIGNATURE_HEADER]), checks);
  const { raw, payload } = parseJson(body);
  const eventHeader = headerText(headers[EVENT_HEADER]) ?? null;
  const { kind, summary } = classifyEvent(payload, eventHeader);
  const dedupeKey = deliveryId !== null ? `delivery:${deliveryId}` : `sha256:${sha256(body).toString('hex')}`;
  return { body, raw, payload, kind, summary, eventHeader, secretIndex, dedupeKey };
}

/** Runs the checks in order (cheap ones before reading the body); throws a Rejection on the first that fails. */
export async function receiveEvent(request: IncomingMessage, deliveryId: string | null, checks: ReceiveChecks): Promise<VerifiedEvent> {
  checkRequest(request, checks);
  const body = await readBody(request, checks.maxBodyBytes);
  return verifyEvent(request, body, deliveryId, checks);
}
