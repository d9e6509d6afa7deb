// A local receiver for the service's webhooks, composed of small parts: receive.ts checks each
// POST the way a production receiver should (Basic auth, content type, size, X-Svc-Signature over
// the raw bytes, JSON); deliveries.ts tells retries apart from new events; keep.ts stores each
// new event before it is acknowledged; relay.ts passes the original bytes on to the developer's
// own app. Everything is reported to a sink, so that the command alone decides how to print.

import { STATUS_CODES, createServer } from 'node:http';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Deliveries } from './deliveries.js';
import { keepEvent, keepEventThen, type EventSink, type KeptEvent } from './keep.js';
import { isoTime } from './format.js';
import { MAX_WEBHOOK_BODY_BYTES, Rejection, checkRequest, collectBody, deliveryIdOf, describeError, errorCodeFor, prepareChecks, verifyEvent, type VerifiedEvent } from './receive.js';
import { checkForwardUrl, createRelay, type Relay } from './relay.js';
import type { AcceptedWebhookEvent, BasicCredentials, WebhookSink } from './types.js';

export type { AcceptedWebhookEvent, BasicCredentials, ForwardResult, RejectedWebhookRequest, WebhookSink } from './types.js';
export type { EventSink } from './keep.js';
export { MAX_WEBHOOK_BODY_BYTES } from './receive.js';
export { checkForwardUrl, DEFAULT_FORWARD_TIMEOUT_MS } from './relay.js';

export const DEFAULT_DEDUPE_CAPACITY = 10_000;

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

export interface WebhookListener {
  readonly host: string;
  readonly port: number;
  /** The URL to give the sender, e.g. http://127.0.0.1:4242/ */
  readonly url: string;
  /** Stops accepting, lets requests in flight finish (briefly), ends every socket. */
  close(): Promise<void>;
}

// Beyond this, a rejected body is no longer drained but the connection is cut: draining keeps
// the connection usable and lets the client read the answer, but not for an unbounded upload.
const DRAIN_LIMIT_FACTOR = 4;

const JSON_TYPE = 'application/json; charset=utf-8';

const LATEST_REQUEST = Symbol('svc.latestRequest');
type TrackedSocket = Socket & { [LATEST_REQUEST]?: IncomingMessage };

function answer(response: ServerResponse, status: number, body: Buffer | string, headers: OutgoingHttpHeaders, closing: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
  const allHeaders: OutgoingHttpHeaders = { ...headers, 'Content-Length': length };
  if (closing) allHeaders['Connection'] = 'close';
  response.writeHead(status, allHeaders);
  response.end(body);
}

function received(deliveryId: string | null, duplicate: boolean): string {
  return `{"received":true,"duplicate":${duplicate},"deliveryId":${JSON.stringify(deliveryId)}}\n`;
}

/** The 200 an accepted event gets (the common answer: headers as a flat list, no object to build and walk). */
function acknowledge(response: ServerResponse, deliveryId: string | null, duplicate: boolean, closing: boolean): void {
  if (response.headersSent || response.destroyed) return;
  const body = received(deliveryId, duplicate);
  const length = String(Buffer.byteLength(body));
  response.writeHead(200, closing ? ['Content-Type', JSON_TYPE, 'Content-Length', length, 'Connection', 'close'] : ['Content-Type', JSON_TYPE, 'Content-Length', length]);
  response.end(body);
}

/** Reads and discards the rest of a refused body, so that a client still sending gets to read the answer. */
function drain(request: IncomingMessage, response: ServerResponse, maxBodyBytes: number): void {
  if (request.complete) return;
  const declared = Number(request.headers['content-length'] ?? '0');
  const drainLimit = maxBodyBytes * DRAIN_LIMIT_FACTOR;
  if (Number.isFinite(declared) && declared > drainLimit) {
    // Not worth reading: answer and close.
    response.setHeader('Connection', 'close');
    return;
  }
  // Cut the connection if it goes on far longer than announced.
  let drained = 0;
  request.on('data', (chunk: Buffer) => {
    drained += chunk.length;
    if (drained > drainLimit) request.socket.destroy();
  });
  request.resume();
}

/** Hands an accepted event to the sink: one that throws must not take the listener down. */
function reportAccepted(sink: WebhookSink, event: AcceptedWebhookEvent): void {
  try {
    sink.accepted(event);
  } catch {
    /* the sink is the command's printer; nothing better to do with its failure here */
  }
}

function report(call: () => void): void {
  // A sink that throws must not take the listener down; the request has been answered already.
  try {
    call();
  } catch {
    /* the sink is the command's printer; nothing better to do with its failure here */
  }
}

function secretsOf(option: WebhookListenerOptions['secrets']): readonly string[] | undefined {
  if (option === undefined) return undefined;
  const secrets = typeof option === 'string' ? [option] : [...option];
  if (secrets.length === 0 || secrets.some((secret) => secret === '')) throw new TypeError('webhook secrets must be non-empty strings');
  return secrets;
}

export async function startWebhookListener(options: WebhookListenerOptions, sink: WebhookSink): Promise<WebhookListener> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? MAX_WEBHOOK_BODY_BYTES;
  const closeGraceMs = options.closeGraceMs ?? 1000;
  const now = options.now ?? ((): Date => new Date());
  const checks = prepareChecks({ maxBodyBytes, secrets: secretsOf(options.secrets), basicAuth: options.basicAuth });
  const relay: Relay | undefined =
    options.forwardTo === undefined
      ? undefined
      : createRelay(checkForwardUrl(options.forwardTo), { maxBodyBytes, ...(options.forwardTimeoutMs !== undefined ? { timeoutMs: options.forwardTimeoutMs } : {}) });
  const store = options.store;
  const deliveries = new Deliveries(options.dedupeCapacity ?? DEFAULT_DEDUPE_CAPACITY, relay !== undefined, options.storedIds ?? []);
  let closing = false;

  function refuse(request: IncomingMessage, response: ServerResponse, rejection: Rejection, deliveryId: string | null): void {
    drain(request, response, maxBodyBytes);
    const body = { message: rejection.reason, title: STATUS_CODES[rejection.status] ?? 'Error', errorCode: errorCodeFor(rejection.status) };
    answer(response, rejection.status, `${JSON.stringify(body)}\n`, { 'Content-Type': JSON_TYPE, ...rejection.headers }, closing);
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

  /** A new event (not a retry): kept, then acknowledged or relayed; the app's answer decides with a relay. */
  async function accept(request: IncomingMessage, response: ServerResponse, event: AcceptedWebhookEvent, verified: VerifiedEvent): Promise<void> {
    const { dedupeKey } = event;
    if (store !== undefined && !deliveries.isStored(dedupeKey)) {
      await keepEvent(store, keptOf(event, request));
      deliveries.markStored(dedupeKey);
      event.stored = true;
    }
    if (relay === undefined) {
      deliveries.markAcknowledged(dedupeKey);
      reportAccepted(sink, event);
      acknowledge(response, event.deliveryId, false, closing);
      return;
    }
    const { answer: appAnswer, result } = await relay.send(request, verified.body);
    event.forward = result;
    if (appAnswer === null) {
      event.status = 502;
      const message = `the app at ${relay.target.href} did not answer: ${result.error ?? 'unknown error'}`;
      answer(response, 502, `${JSON.stringify({ message, title: STATUS_CODES[502], errorCode: 'BAD_GATEWAY' })}\n`, { 'Content-Type': JSON_TYPE }, closing);
    } else {
      event.status = appAnswer.status;
      // Only an acknowledged event counts as seen: the sender's retry of a refused one must reach the app.
      if (appAnswer.status >= 200 && appAnswer.status < 300) deliveries.markAcknowledged(dedupeKey);
      answer(response, appAnswer.status, appAnswer.body, appAnswer.headers, closing);
    }
    reportAccepted(sink, event);
  }

  function keptOf(event: AcceptedWebhookEvent, request: IncomingMessage): KeptEvent {
    return { id: event.deliveryId ?? event.dedupeKey, kind: event.kind, summary: event.summary, receivedAt: event.receivedAt, at: isoTime(event.receivedAt), headers: request.headers, raw: event.raw, verified: event.signature === 'valid' };
  }

  /** What a request that failed a check, or broke, is answered. */
  function failed(request: IncomingMessage, response: ServerResponse, error: unknown, deliveryId: string | null): void {
    if (error instanceof Rejection) {
      refuse(request, response, error, deliveryId);
      return;
    }
    // The client went away or something unforeseen broke: answer if still possible, keep running.
    const reason = `request failed: ${describeError(error)}`;
    refuse(request, response, new Rejection(request.destroyed ? 400 : 500, reason), deliveryId);
    if (!request.complete) request.socket.destroy();
  }

  // The 200s of events that need no store or relay are sent together at the end of the event-loop
  // turn that verified them, as the store's are after its one write a turn: answering inside each
  // request's handler cost the listener about a fifth more CPU an event (bench:listener, --no-store
  // 0.84-0.89x of the floor against 1.06x batched), in wake-ups of the sender and of this loop.
  const toAnswer: { response: ServerResponse; deliveryId: string | null; duplicate: boolean; finish: () => void }[] = [];
  function answerTurn(): void {
    const batch = toAnswer.splice(0);
    for (const { response, deliveryId, duplicate, finish } of batch) {
      try {
        acknowledge(response, deliveryId, duplicate, closing);
      } catch {
        // Unforeseen (the answer is fixed text): the sender sees the connection drop and retries.
        response.destroy();
      } finally {
        finish();
      }
    }
  }
  // Requests being handled, so that close() can let them finish: a count, not a promise each.
  let inFlight = 0;
  const whenIdle: (() => void)[] = [];
  function finished(): void {
    inFlight -= 1;
    if (inFlight === 0) for (const resolve of whenIdle.splice(0)) resolve();
  }

  /**
   * A verified event: a retry of one acknowledged is answered 200 again; a new one is kept (with a
   * store) before its 200, or relayed. Calls `finish` once, when the request is dealt with. The
   * common cases run on callbacks: no promise, no async function per event.
   */
  function decide(request: IncomingMessage, response: ServerResponse, verified: VerifiedEvent, receivedAt: Date, deliveryId: string | null, finish: () => void): void {
    const { dedupeKey } = verified;
    const duplicate = deliveries.isAcknowledged(dedupeKey);
    const event: AcceptedWebhookEvent = {
      receivedAt,
      method: 'POST',
      path: request.url ?? '/',
      kind: verified.kind,
      eventHeader: verified.eventHeader,
      summary: verified.summary,
      payload: verified.payload,
      raw: verified.raw,
      deliveryId,
      dedupeKey,
      duplicate,
      stored: false,
      signature: checks.secrets === undefined ? 'unchecked' : 'valid',
      secretIndex: verified.secretIndex,
      status: 200,
      forward: null,
    };
    if (duplicate || (store === undefined && relay === undefined)) {
      if (!duplicate) deliveries.markAcknowledged(dedupeKey);
      reportAccepted(sink, event);
      if (toAnswer.length === 0) setImmediate(answerTurn);
      toAnswer.push({ response, deliveryId, duplicate, finish });
      return;
    }
    // A retry arriving while this one is stored or relayed waits for its outcome (see handle).
    const claim = deliveries.claim(dedupeKey);
    if (relay === undefined && store !== undefined && !deliveries.isStored(dedupeKey)) {
      keepEventThen(store, keptOf(event, request), (rejection) => {
        try {
          if (rejection !== null) {
            failed(request, response, rejection, deliveryId);
            return;
          }
          deliveries.markStored(dedupeKey);
          event.stored = true;
          deliveries.markAcknowledged(dedupeKey);
          reportAccepted(sink, event);
          acknowledge(response, deliveryId, false, closing);
        } finally {
          deliveries.release(claim);
          finish();
        }
      });
      return;
    }
    accept(request, response, event, verified).then(
      () => {
        deliveries.release(claim);
        finish();
      },
      (error: unknown) => {
        deliveries.release(claim);
        failed(request, response, error, deliveryId);
        finish();
      },
    );
  }

  /** A retry of a delivery still being handled: waits for that to end, then decides (rare). */
  async function afterEarlier(request: IncomingMessage, response: ServerResponse, verified: VerifiedEvent, receivedAt: Date, deliveryId: string | null): Promise<void> {
    const { dedupeKey } = verified;
    for (let earlier = deliveries.pending(dedupeKey); earlier !== undefined; earlier = deliveries.pending(dedupeKey)) await earlier;
    await new Promise<void>((resolve) => decide(request, response, verified, receivedAt, deliveryId, resolve));
  }

  function handle(request: IncomingMessage, response: ServerResponse): void {
    const receivedAt = now();
    const method = request.method ?? '?';
    const path = request.url ?? '/';
    const deliveryId = deliveryIdOf(request);
    if ((method === 'GET' || method === 'HEAD') && (path === '/' || path.startsWith('/?'))) {
      answer(response, 200, 'svc webhook listener: POST events here\n', { 'Content-Type': 'text/plain; charset=utf-8' }, closing);
      return;
    }
    try {
      checkRequest(request, checks);
    } catch (error) {
      failed(request, response, error, deliveryId);
      return;
    }
    inFlight += 1;
    collectBody(request, maxBodyBytes, (error, body) => {
      try {
        if (body === null) throw error;
        const verified = verifyEvent(request, body, deliveryId, checks);
        if (deliveries.pending(verified.dedupeKey) !== undefined) {
          afterEarlier(request, response, verified, receivedAt, deliveryId).then(finished, (error: unknown) => {
            failed(request, response, error, deliveryId);
            finished();
          });
          return;
        }
        decide(request, response, verified, receivedAt, deliveryId, finished);
      } catch (error) {
        failed(request, response, error, deliveryId);
        finished();
      }
    });
  }

  const server = createServer({ requestTimeout: 60_000, headersTimeout: 30_000 }, (request, response) => {
    // The latest request of each connection: a client that hangs up before that request's body
    // ended makes Node report the connection too, after the request itself was reported.
    (request.socket as TrackedSocket)[LATEST_REQUEST] = request;
    handle(request, response);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    const cutRequest = (socket as TrackedSocket)[LATEST_REQUEST];
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
          relay?.abortAll();
          server.closeAllConnections();
        }, closeGraceMs);
        if (inFlight > 0) await new Promise<void>((resolve) => whenIdle.push(resolve));
        // Connections that served the last requests are idle now.
        server.closeIdleConnections();
        server.closeAllConnections();
        clearTimeout(grace);
        await stopped;
        relay?.destroy();
      })();
      return closed;
    },
  };
}
