// A local receiver for the service's webhooks: it checks each POST the way a production receiver
// should (Basic auth, content type, size, X-Svc-Signature over the raw bytes, JSON), tells retries
// apart from new events, optionally relays the original bytes to the developer's own app, and
// reports everything to a sink so that the command alone decides how to print.

import { createHash, timingSafeEqual } from 'node:crypto';
import { Agent as HttpAgent, STATUS_CODES, createServer, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { isLoopbackHost } from '../domain/validate.js';
import { DELIVERY_HEADER, EVENT_HEADER, classifyEvent } from './payloads.js';
import type { WebhookEventKind, WebhookEventSummary } from './payloads.js';
import { SeenDeliveries } from './seen-deliveries.js';
import { SIGNATURE_HEADER, verifySignature } from './signature.js';
import { eventRecord, keptHeaders } from '../events/records.js';
import type { StoredRecord } from '../events/store.js';

export const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;
export const DEFAULT_DEDUPE_CAPACITY = 10_000;
/** The service gives an endpoint 10 s to answer; the relayed app gets the same. */
export const DEFAULT_FORWARD_TIMEOUT_MS = 10_000;

export interface BasicCredentials {
  username: string;
  password: string;
}

export interface WebhookListenerOptions {
  /** Default 127.0.0.1: a listener is for local development unless asked otherwise. */
  host?: string;
  /** Default 0 (any free port); the command picks its own default. */
  port?: number;
  /** When set, every event must carry a valid X-Svc-Signature; several secrets allow rotation. */
  secrets?: string | readonly string[];
  /** When set, every event must carry these Basic credentials. */
  basicAuth?: BasicCredentials;
  /** The developer's app: https, or http on a loopback host. Valid events are relayed there. */
  forwardTo?: string;
  forwardTimeoutMs?: number;
  maxBodyBytes?: number;
  dedupeCapacity?: number;
  /** Wall clock for receivedAt; injectable for tests. */
  now?: () => Date;
  /** How long close() lets requests in flight finish before cutting their connections. */
  closeGraceMs?: number;
  /**
   * Where accepted events are kept: each new event is stored before the 2xx answer (as durably as
   * the sink's promise says: written, or synced), so that an acknowledged event survives a crash of
   * the listener; the sender retries what was not acknowledged.
   */
  store?: EventSink;
  /** Event ids already in the store (newest last), so that a restarted listener still deduplicates. */
  storedIds?: readonly string[];
}

/** The part of the event store the listener needs. */
export interface EventSink {
  append(record: StoredRecord): Promise<void>;
}

export interface ForwardResult {
  url: string;
  /** The app's status, or null when it could not be reached or did not answer in time. */
  status: number | null;
  durationMs: number;
  error: string | null;
}

export interface AcceptedWebhookEvent {
  receivedAt: Date;
  method: string;
  path: string;
  kind: WebhookEventKind;
  /** The X-Svc-Event header as sent, or null. */
  eventHeader: string | null;
  summary: WebhookEventSummary;
  payload: unknown;
  /** The body exactly as received, decoded as UTF-8 (it is valid JSON). */
  raw: string;
  deliveryId: string | null;
  /** `delivery:<X-Svc-Delivery>` or `sha256:<hex of the body>`. */
  dedupeKey: string;
  /** A retry of an event already acknowledged: answered 200 and not relayed again. */
  duplicate: boolean;
  /** Kept in the event store by this delivery (false without a store, and for a retry already kept). */
  stored: boolean;
  signature: 'valid' | 'unchecked';
  /** Which configured secret matched (0 = current), or null when unchecked. */
  secretIndex: number | null;
  /** The status answered to the sender. */
  status: number;
  forward: ForwardResult | null;
}

export interface RejectedWebhookRequest {
  receivedAt: Date;
  method: string;
  path: string;
  remoteAddress: string | null;
  status: number;
  reason: string;
  deliveryId: string | null;
}

/** Where the listener reports; the command prints, tests collect. */
export interface WebhookSink {
  accepted(event: AcceptedWebhookEvent): void;
  rejected(request: RejectedWebhookRequest): void;
}

export interface WebhookListener {
  readonly host: string;
  readonly port: number;
  /** The URL to give the sender, e.g. http://127.0.0.1:4242/ */
  readonly url: string;
  /** Stops accepting, lets requests in flight finish (briefly), ends every socket. */
  close(): Promise<void>;
}

// Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one connection and are never relayed.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
]);

// Beyond this, a rejected body is no longer drained but the connection is cut: draining keeps
// the connection usable and lets the client read the answer, but not for an unbounded upload.
const DRAIN_LIMIT_FACTOR = 4;

class Rejection extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    readonly headers: OutgoingHttpHeaders = {},
  ) {
    super(reason);
  }
}

function headerText(value: string | string[] | undefined): string | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.join(', ') : value;
}

function sha256(data: Uint8Array | string): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Compares via digests so that neither length nor content leaks through timing. */
function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

function checkBasicAuth(headers: IncomingHttpHeaders, expected: BasicCredentials): void {
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

function checkContentType(headers: IncomingHttpHeaders): void {
  const contentType = headers['content-type'];
  if (contentType === undefined || contentType.trim() === '') {
    throw new Rejection(415, 'content type missing (expected application/json)');
  }
  const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new Rejection(415, `content type ${JSON.stringify(contentType.slice(0, 100))} is not application/json`);
  }
}

function tooLarge(limit: number): Rejection {
  return new Rejection(413, `body over ${limit} bytes (the limit is ${formatBytes(limit)})`);
}

function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}

/**
 * Collects the body up to the limit; past it, stops collecting and rejects with 413. The
 * listeners stay on the request (a settled flag silences them): adding and removing five
 * listeners per request was a measurable share of a busy listener's time.
 */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    request.on('data', (chunk: Buffer) => {
      if (settled) return;
      total += chunk.length;
      if (total > limit) {
        settled = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return;
      settled = true;
      reject(error.code === 'ECONNRESET' && !request.complete ? new Error('request aborted by the client') : error);
    });
    // A connection cut before the end (the client left, or close() ran out of patience).
    request.on('close', () => {
      if (settled || request.complete) return;
      settled = true;
      reject(new Error('request aborted by the client'));
    });
  });
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(body: Buffer): { raw: string; payload: unknown } {
  let raw: string;
  try {
    raw = utf8.decode(body);
  } catch {
    throw new Rejection(400, 'invalid JSON: the body is not valid UTF-8');
  }
  try {
    return { raw, payload: JSON.parse(raw) as unknown };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Rejection(400, raw.trim() === '' ? 'invalid JSON: the body is empty' : `invalid JSON: ${detail}`);
  }
}

/** The forward target: https, or http on a loopback host; anything else throws a TypeError saying so. */
export function checkForwardUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`forward URL ${JSON.stringify(value)} is not a URL`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new TypeError(
    `forward URL ${JSON.stringify(value)} must be https://, or http:// on a loopback host (localhost, 127.0.0.0/8, [::1])`,
  );
}

function relayedRequestHeaders(request: IncomingMessage, target: URL, length: number): OutgoingHttpHeaders {
  const connectionTokens = new Set(
    (headerText(request.headers.connection) ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
  const headers: OutgoingHttpHeaders = {};
  const raw = request.rawHeaders;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] ?? '';
    const value = raw[index + 1] ?? '';
    const lower = name.toLowerCase();
    // The body is relayed whole, so its length is ours to state and 100-continue is done with.
    if (HOP_BY_HOP.has(lower) || connectionTokens.has(lower)) continue;
    if (lower === 'host' || lower === 'content-length' || lower === 'expect') continue;
    const existing = headers[name];
    if (existing === undefined) headers[name] = value;
    else headers[name] = Array.isArray(existing) ? [...existing, value] : [String(existing), value];
  }
  headers['Host'] = target.host;
  headers['Content-Length'] = String(length);
  return headers;
}

function relayedResponseHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const connectionTokens = new Set(
    (headerText(headers.connection) ?? '').split(',').map((token) => token.trim().toLowerCase()),
  );
  const relayed: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    if (name === 'content-length' || name === 'date') continue;
    relayed[name] = value;
  }
  return relayed;
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== undefined && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

interface AppAnswer {
  status: number;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export async function startWebhookListener(
  options: WebhookListenerOptions,
  sink: WebhookSink,
): Promise<WebhookListener> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const forwardTimeoutMs = options.forwardTimeoutMs ?? DEFAULT_FORWARD_TIMEOUT_MS;
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const now = options.now ?? ((): Date => new Date());
  const secrets =
    options.secrets === undefined ? undefined : typeof options.secrets === 'string' ? [options.secrets] : [...options.secrets];
  if (secrets !== undefined && (secrets.length === 0 || secrets.some((secret) => secret === ''))) {
    throw new TypeError('webhook secrets must be non-empty strings');
  }
  const forwardUrl = options.forwardTo === undefined ? undefined : checkForwardUrl(options.forwardTo);
  const capacity = options.dedupeCapacity ?? DEFAULT_DEDUPE_CAPACITY;
  const seen = new SeenDeliveries(capacity);
  // With a forward target, an event can be stored but not acknowledged (the app refused it): its
  // retry is relayed again but not stored twice. Without one, stored means acknowledged.
  const stored = forwardUrl === undefined ? seen : new SeenDeliveries(capacity);
  for (const id of options.storedIds ?? []) stored.add(id.startsWith('sha256:') ? id : `delivery:${id}`);
  const store = options.store;
  // Keys whose first delivery is still being stored or relayed: a retry arriving meanwhile waits
  // for the outcome instead of being stored or reaching the app twice.
  const relaying = new Map<string, Promise<void>>();
  const forwardAgent =
    forwardUrl === undefined
      ? undefined
      : forwardUrl.protocol === 'https:'
        ? new HttpsAgent({ keepAlive: true, maxSockets: 64 })
        : new HttpAgent({ keepAlive: true, maxSockets: 64 });
  const forwardsInFlight = new Set<ClientRequest>();
  const handlersInFlight = new Set<Promise<void>>();
  let closing = false;

  function report(call: () => void): void {
    // A sink that throws must not take the listener down; the request has been answered already.
    try {
      call();
    } catch {
      /* the sink is the command's printer; nothing better to do with its failure here */
    }
  }

  function answer(response: ServerResponse, status: number, body: Buffer | string, headers: OutgoingHttpHeaders): void {
    if (response.headersSent || response.destroyed) return;
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    const allHeaders: OutgoingHttpHeaders = { ...headers, 'Content-Length': bytes.length };
    if (closing) allHeaders['Connection'] = 'close';
    response.writeHead(status, allHeaders);
    response.end(bytes);
  }

  function answerJson(response: ServerResponse, status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void {
    answer(response, status, `${JSON.stringify(body)}\n`, { 'Content-Type': 'application/json; charset=utf-8', ...headers });
  }

  function refuse(request: IncomingMessage, response: ServerResponse, rejection: Rejection, deliveryId: string | null): void {
    if (!request.complete) {
      const declared = Number(request.headers['content-length'] ?? '0');
      const drainLimit = maxBodyBytes * DRAIN_LIMIT_FACTOR;
      if (Number.isFinite(declared) && declared > drainLimit) {
        // Not worth reading: answer and close.
        response.setHeader('Connection', 'close');
      } else {
        // Read and discard the rest so that the client, still sending, gets to read the answer;
        // cut the connection if it goes on far longer than announced.
        let drained = 0;
        request.on('data', (chunk: Buffer) => {
          drained += chunk.length;
          if (drained > drainLimit) request.socket.destroy();
        });
        request.resume();
      }
    }
    answerJson(
      response,
      rejection.status,
      { message: rejection.reason, title: STATUS_CODES[rejection.status] ?? 'Error', errorCode: errorCodeFor(rejection.status) },
      rejection.headers,
    );
    report(() =>
      sink.rejected({
        receivedAt: now(),
        method: request.method ?? '?',
        path: request.url ?? '/',
        remoteAddress: request.socket.remoteAddress ?? null,
        status: rejection.status,
        reason: rejection.reason,
        deliveryId,
      }),
    );
  }

  async function relay(request: IncomingMessage, body: Buffer, target: URL): Promise<{ answer: AppAnswer | null; result: ForwardResult }> {
    const started = performance.now();
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (appAnswer: AppAnswer | null, error: string | null): void => {
        if (settled) return;
        settled = true;
        forwardsInFlight.delete(outgoing);
        resolve({
          answer: appAnswer,
          result: {
            url: target.href,
            status: appAnswer?.status ?? null,
            durationMs: Math.round((performance.now() - started) * 10) / 10,
            error,
          },
        });
      };
      const outgoing = send(target, {
        method: 'POST',
        headers: relayedRequestHeaders(request, target, body.length),
        agent: forwardAgent,
      });
      forwardsInFlight.add(outgoing);
      outgoing.setTimeout(forwardTimeoutMs, () => {
        outgoing.destroy(new Error(`no answer within ${forwardTimeoutMs} ms`));
      });
      outgoing.on('error', (error) => finish(null, describeError(error)));
      outgoing.on('response', (appResponse) => {
        const chunks: Buffer[] = [];
        let total = 0;
        appResponse.on('data', (chunk: Buffer) => {
          // The app's answer is relayed to the sender, which only looks at the status; keep a bounded part.
          if (total < maxBodyBytes) chunks.push(chunk.subarray(0, maxBodyBytes - total));
          total += chunk.length;
        });
        appResponse.on('end', () =>
          finish(
            {
              status: appResponse.statusCode ?? 502,
              headers: relayedResponseHeaders(appResponse.headers),
              body: Buffer.concat(chunks),
            },
            null,
          ),
        );
        appResponse.on('error', (error) => finish(null, `the app's answer broke off: ${describeError(error)}`));
        // An answer cut short may end with neither 'end' nor 'error'; after 'end' this does nothing.
        appResponse.on('close', () => finish(null, "the app's answer broke off before its end"));
      });
      outgoing.end(body);
    });
  }

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const receivedAt = now();
    const method = request.method ?? '?';
    const path = request.url ?? '/';
    const deliveryHeader = headerText(request.headers[DELIVERY_HEADER])?.trim();
    const deliveryId = deliveryHeader === undefined || deliveryHeader === '' ? null : deliveryHeader;
    try {
      if (method === 'GET' || method === 'HEAD') {
        if (path === '/' || path.startsWith('/?')) {
          answer(response, 200, 'svc webhook listener: POST events here\n', { 'Content-Type': 'text/plain; charset=utf-8' });
          return;
        }
      }
      if (method !== 'POST') throw new Rejection(405, `method ${method} not allowed: webhooks are POSTed`, { Allow: 'POST' });
      if (options.basicAuth !== undefined) checkBasicAuth(request.headers, options.basicAuth);
      checkContentType(request.headers);
      const declared = request.headers['content-length'];
      if (declared !== undefined && Number(declared) > maxBodyBytes) throw tooLarge(maxBodyBytes);

      const body = await readBody(request, maxBodyBytes);
      let secretIndex: number | null = null;
      if (secrets !== undefined) {
        const verdict = verifySignature(body, headerText(request.headers[SIGNATURE_HEADER]), secrets);
        if (!verdict.valid) throw new Rejection(401, signatureReason(verdict.reason));
        secretIndex = verdict.secretIndex;
      }
      const { raw, payload } = parseJson(body);
      const eventHeader = headerText(request.headers[EVENT_HEADER]) ?? null;
      const { kind, summary } = classifyEvent(payload, eventHeader);
      const dedupeKey = deliveryId !== null ? `delivery:${deliveryId}` : `sha256:${sha256(body).toString('hex')}`;

      for (let pending = relaying.get(dedupeKey); pending !== undefined; pending = relaying.get(dedupeKey)) {
        await pending;
      }
      const duplicate = seen.has(dedupeKey);
      const event: AcceptedWebhookEvent = {
        receivedAt,
        method,
        path,
        kind,
        eventHeader,
        summary,
        payload,
        raw,
        deliveryId,
        dedupeKey,
        duplicate,
        stored: false,
        signature: secrets === undefined ? 'unchecked' : 'valid',
        secretIndex,
        status: 200,
        forward: null,
      };

      if (duplicate || (store === undefined && forwardUrl === undefined)) {
        if (!duplicate) seen.add(dedupeKey);
        answerJson(response, 200, { received: true, duplicate, deliveryId });
        report(() => sink.accepted(event));
        return;
      }

      let markDone = (): void => {};
      relaying.set(dedupeKey, new Promise<void>((resolve) => (markDone = resolve)));
      try {
        if (store !== undefined && !stored.has(dedupeKey)) {
          const id = deliveryId ?? dedupeKey;
          const hasNumbers = kind === 'MessageReceived' || kind === 'DeliveryReceipt';
          try {
            await store.append(
              eventRecord({
                id,
                type: kind,
                receivedAt,
                from: hasNumbers ? summary.from : undefined,
                to: hasNumbers ? summary.to : undefined,
                messageId: hasNumbers ? summary.id : undefined,
                status: summary.status,
                headers: keptHeaders(request.headers),
                raw,
              }),
            );
          } catch (error) {
            // Not kept, so not acknowledged: the sender will try again.
            throw new Rejection(503, `the event could not be stored: ${describeError(error)}`, { 'Retry-After': '5' });
          }
          stored.add(dedupeKey);
          event.stored = true;
        }

        if (forwardUrl === undefined) {
          seen.add(dedupeKey);
          answerJson(response, 200, { received: true, duplicate, deliveryId });
          report(() => sink.accepted(event));
          return;
        }

        const { answer: appAnswer, result } = await relay(request, body, forwardUrl);
        event.forward = result;
        if (appAnswer === null) {
          event.status = 502;
          answerJson(response, 502, {
            message: `the app at ${forwardUrl.href} did not answer: ${result.error ?? 'unknown error'}`,
            title: STATUS_CODES[502],
            errorCode: 'BAD_GATEWAY',
          });
        } else {
          event.status = appAnswer.status;
          // Only an acknowledged event counts as seen: the sender's retry of a refused one must reach the app.
          if (appAnswer.status >= 200 && appAnswer.status < 300) seen.add(dedupeKey);
          answer(response, appAnswer.status, appAnswer.body, appAnswer.headers);
        }
        report(() => sink.accepted(event));
      } finally {
        relaying.delete(dedupeKey);
        markDone();
      }
    } catch (error) {
      if (error instanceof Rejection) {
        refuse(request, response, error, deliveryId);
        return;
      }
      // The client went away or something unforeseen broke: answer if still possible, keep running.
      const reason = `request failed: ${describeError(error)}`;
      refuse(request, response, new Rejection(request.destroyed ? 400 : 500, reason), deliveryId);
      if (!request.complete) request.socket.destroy();
    }
  }

  // The latest request of each connection: a client that hangs up before that request's body
  // ended makes Node report the connection too, after the request itself was reported.
  const latestRequest = new WeakMap<Socket, IncomingMessage>();
  const server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, (request, response) => {
    latestRequest.set(request.socket, request);
    const handling = handle(request, response);
    handlersInFlight.add(handling);
    void handling.finally(() => handlersInFlight.delete(handling));
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const cutRequest = latestRequest.get(socket);
    if (error.code === 'ECONNRESET' || !socket.writable || (error.code === 'HPE_INVALID_EOF_STATE' && cutRequest !== undefined && !cutRequest.complete)) {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Bad Request'}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    report(() =>
      sink.rejected({
        receivedAt: now(),
        method: '?',
        path: '?',
        remoteAddress: socket.remoteAddress ?? null,
        status,
        reason: `malformed HTTP request (${error.code ?? error.message})`,
        deliveryId: null,
      }),
    );
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  let closed: Promise<void> | undefined;
  return {
    host: address.address,
    port: address.port,
    url: `http://${urlHost}:${address.port}/`,
    close(): Promise<void> {
      closed ??= (async () => {
        closing = true;
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        const grace = setTimeout(() => {
          for (const outgoing of forwardsInFlight) outgoing.destroy(new Error('the listener is closing'));
          server.closeAllConnections();
        }, closeGraceMs);
        await Promise.allSettled([...handlersInFlight]);
        // Connections that served the last requests are idle now.
        server.closeIdleConnections();
        server.closeAllConnections();
        clearTimeout(grace);
        await stopped;
        forwardAgent?.destroy();
      })();
      return closed;
    },
  };
}

function signatureReason(reason: 'missing' | 'malformed' | 'mismatch'): string {
  switch (reason) {
    case 'missing':
      return 'signature missing: no X-Svc-Signature header';
    case 'malformed':
      return 'signature malformed: X-Svc-Signature is not Base64 of a 32-byte HMAC-SHA256 digest';
    case 'mismatch':
      return 'signature mismatch: X-Svc-Signature does not match the body under the configured secret';
  }
}

function errorCodeFor(status: number): string {
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
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return 'INTERNAL_ERROR';
  }
}
