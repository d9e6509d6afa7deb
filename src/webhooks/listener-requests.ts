// The webhook listener's handling of one request, in the parts its module head names
// (listener.ts): checked (receive.ts), told apart from retries (deliveries.ts), kept
// (keep.ts) or relayed (relay.ts), then answered (listener-answers.ts). Everything is reported
// to the sink, so that the command alone decides how to print.

import { STATUS_CODES, type IncomingMessage, type ServerResponse } from 'node:http';
import { Deliveries } from './deliveries.js';
import { isoTime } from './format.js';
import { keepEvent, keepEventThen, type EventSink, type KeptEvent } from './keep.js';
import { acknowledge, answer, drain, JSON_TYPE } from './listener-answers.js';
import { MAX_WEBHOOK_BODY_BYTES, Rejection, checkRequest, collectBody, deliveryIdOf, describeError, errorCodeFor, prepareChecks, verifyEvent, type PreparedChecks, type VerifiedEvent } from './receive.js';
import { checkForwardUrl, createRelay, type Relay } from './relay.js';
import type { AcceptedWebhookEvent, BasicCredentials, WebhookSink } from './types.js';

export const DEFAULT_DEDUPE_CAPACITY = 10_000;

/** What the request handler needs of the listener's options (see WebhookListenerOptions). */
export interface RequestHandlerOptions {
  secrets?: string | readonly string[];
  basicAuth?: BasicCredentials;
  forwardTo?: string;
  forwardTimeoutMs?: number;
  maxBodyBytes?: number;
  dedupeCapacity?: number;
  now?: () => Date;
  store?: EventSink;
  storedIds?: readonly string[];
  /**
   * Called for each new (not retried) verified event before it is kept and answered: a promise
   * when it has work that must be done first (the opt-out list, src/optouts/listener-consent.ts);
   * a rejection refuses the event with 503, so that the sender delivers it again.
   */
  consent?: (event: AcceptedWebhookEvent) => Promise<void> | undefined;
}

export class WebhookRequestHandler {
  readonly maxBodyBytes: number;
  readonly relay: Relay | undefined;
  /** Set once the listener is closing: answers then ask the client to close the connection. */
  closing = false;
  private readonly now: () => Date;
  private readonly checks: PreparedChecks;
  private readonly store: EventSink | undefined;
  private readonly deliveries: Deliveries;
  private readonly consent: RequestHandlerOptions['consent'];

  constructor(
    options: RequestHandlerOptions,
    private readonly sink: WebhookSink,
  ) {
    const maxBodyBytes = options.maxBodyBytes ?? MAX_WEBHOOK_BODY_BYTES;
    this.maxBodyBytes = maxBodyBytes;
    this.now = options.now ?? ((): Date => new Date());
    this.checks = prepareChecks({ maxBodyBytes, secrets: secretsOf(options.secrets), basicAuth: options.basicAuth });
    this.relay =
      options.forwardTo === undefined
        ? undefined
        : createRelay(checkForwardUrl(options.forwardTo), { maxBodyBytes, ...(options.forwardTimeoutMs !== undefined ? { timeoutMs: options.forwardTimeoutMs } : {}) });
    this.store = options.store;
    this.consent = options.consent;
    this.deliveries = new Deliveries(options.dedupeCapacity ?? DEFAULT_DEDUPE_CAPACITY, this.relay !== undefined, options.storedIds ?? []);
  }

  /** Resolves once no request is being handled. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise<void>((resolve) => this.whenIdle.push(resolve));
  }

  /** A connection Node could not parse as HTTP was answered `status`: the sink hears of it. */
  malformed(remoteAddress: string | undefined, status: number, reason: string): void {
    report(() =>
      this.sink.rejected({
        receivedAt: this.now(),
        method: '?',
        path: '?',
        remoteAddress: remoteAddress ?? null,
        status,
        reason,
        deliveryId: null,
      }),
    );
  }

  private refuse(request: IncomingMessage, response: ServerResponse, rejection: Rejection, deliveryId: string | null): void {
    drain(request, response, this.maxBodyBytes);
    const body = { message: rejection.reason, title: STATUS_CODES[rejection.status] ?? 'Error', errorCode: errorCodeFor(rejection.status) };
    answer(response, rejection.status, `${JSON.stringify(body)}\n`, { 'Content-Type': JSON_TYPE, ...rejection.headers }, this.closing);
    report(() =>
      this.sink.rejected({
        receivedAt: this.now(),
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
  private async accept(request: IncomingMessage, response: ServerResponse, event: AcceptedWebhookEvent, verified: VerifiedEvent): Promise<void> {
    const { dedupeKey } = event;
    if (this.store !== undefined && !this.deliveries.isStored(dedupeKey)) {
      await keepEvent(this.store, this.keptOf(event, request));
      this.deliveries.markStored(dedupeKey);
      event.stored = true;
    }
    if (this.relay === undefined) {
      this.deliveries.markAcknowledged(dedupeKey);
      reportAccepted(this.sink, event);
      acknowledge(response, event.deliveryId, false, this.closing);
      return;
    }
    const { answer: appAnswer, result } = await this.relay.send(request, verified.body);
    event.forward = result;
    if (appAnswer === null) {
      event.status = 502;
      const message = `the app at ${this.relay.target.href} did not answer: ${result.error ?? 'unknown error'}`;
      answer(response, 502, `${JSON.stringify({ message, title: STATUS_CODES[502], errorCode: 'BAD_GATEWAY' })}\n`, { 'Content-Type': JSON_TYPE }, this.closing);
    } else {
      event.status = appAnswer.status;
      // Only an acknowledged event counts as seen: the sender's retry of a refused one must reach the app.
      if (appAnswer.status >= 200 && appAnswer.status < 300) this.deliveries.markAcknowledged(dedupeKey);
      answer(response, appAnswer.status, appAnswer.body, appAnswer.headers, this.closing);
    }
    reportAccepted(this.sink, event);
  }

  private keptOf(event: AcceptedWebhookEvent, request: IncomingMessage): KeptEvent {
    return { id: event.deliveryId ?? event.dedupeKey, kind: event.kind, summary: event.summary, receivedAt: event.receivedAt, at: isoTime(event.receivedAt), headers: request.headers, raw: event.raw, verified: event.signature === 'valid' };
  }

  /** What a request that failed a check, or broke, is answered. */
  private failed(request: IncomingMessage, response: ServerResponse, error: unknown, deliveryId: string | null): void {
    if (error instanceof Rejection) {
      this.refuse(request, response, error, deliveryId);
      return;
    }
    // The client went away or something unforeseen broke: answer if still possible, keep running.
    const reason = `request failed: ${describeError(error)}`;
    this.refuse(request, response, new Rejection(request.destroyed ? 400 : 500, reason), deliveryId);
    if (!request.complete) request.socket.destroy();
  }

  // The 200s of events that need no store or relay are sent together at the end of the event-loop
  // turn that verified them, as the store's are after its one write a turn: answering inside each
  // request's handler cost the listener about a fifth more CPU an event (bench:listener, --no-store
  // 0.84-0.89x of the floor against 1.06x batched), in wake-ups of the sender and of this loop.
  private readonly toAnswer: { response: ServerResponse; deliveryId: string | null; duplicate: boolean; finish: () => void }[] = [];
  private readonly answerTurn = (): void => {
    const batch = this.toAnswer.splice(0);
    for (const { response, deliveryId, duplicate, finish } of batch) {
      try {
        acknowledge(response, deliveryId, duplicate, this.closing);
      } catch {
        // Unforeseen (the answer is fixed text): the sender sees the connection drop and retries.
        response.destroy();
      } finally {
        finish();
      }
    }
  };

  // Requests being handled, so that close() can let them finish: a count, not a promise each.
  private inFlight = 0;
  private readonly whenIdle: (() => void)[] = [];
  private readonly finished = (): void => {
    this.inFlight -= 1;
    if (this.inFlight === 0) for (const resolve of this.whenIdle.splice(0)) resolve();
  };

  /**
   * A verified event: a retry of one acknowledged is answered 200 again; a new one is kept (with a
   * store) before its 200, or relayed. Calls `finish` once, when the request is dealt with. The
   * common cases run on callbacks: no promise, no async function per event.
   */
  private decide(request: IncomingMessage, response: ServerResponse, verified: VerifiedEvent, receivedAt: Date, deliveryId: string | null, finish: () => void): void {
    const { dedupeKey } = verified;
    const duplicate = this.deliveries.isAcknowledged(dedupeKey);
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
      signature: this.checks.secrets === undefined ? 'unchecked' : 'valid',
      secretIndex: verified.secretIndex,
      status: 200,
      forward: null,
    };
    if (!duplicate && this.consent !== undefined) {
      let pending: Promise<void> | undefined;
      try {
        pending = this.consent(event);
      } catch (error) {
        pending = Promise.reject(error);
      }
      if (pending !== undefined) {
        pending.then(
          () => this.settle(request, response, verified, event, deliveryId, finish),
          (error: unknown) => {
            this.failed(request, response, new Rejection(503, `the opt-out it asks for could not be recorded: ${describeError(error)}`, { 'Retry-After': '5' }), deliveryId);
            finish();
          },
        );
        return;
      }
    }
    this.settle(request, response, verified, event, deliveryId, finish);
  }

  /** Keeps (or relays) and answers a verified event once anything it asked for is recorded. */
  private settle(request: IncomingMessage, response: ServerResponse, verified: VerifiedEvent, event: AcceptedWebhookEvent, deliveryId: string | null, finish: () => void): void {
    const { dedupeKey, duplicate } = event;
    if (duplicate || (this.store === undefined && this.relay === undefined)) {
      if (!duplicate) this.deliveries.markAcknowledged(dedupeKey);
      reportAccepted(this.sink, event);
      if (this.toAnswer.length === 0) setImmediate(this.answerTurn);
      this.toAnswer.push({ response, deliveryId, duplicate, finish });
      return;
    }
    // A retry arriving while this one is stored or relayed waits for its outcome (see handle).
    const claim = this.deliveries.claim(dedupeKey);
    if (this.relay === undefined && this.store !== undefined && !this.deliveries.isStored(dedupeKey)) {
      keepEventThen(this.store, this.keptOf(event, request), (rejection) => {
        try {
          if (rejection !== null) {
            this.failed(request, response, rejection, deliveryId);
            return;
          }
          this.deliveries.markStored(dedupeKey);
          event.stored = true;
          this.deliveries.markAcknowledged(dedupeKey);
          reportAccepted(this.sink, event);
          acknowledge(response, deliveryId, false, this.closing);
        } finally {
          this.deliveries.release(claim);
          finish();
        }
      });
      return;
    }
    this.accept(request, response, event, verified).then(
      () => {
        this.deliveries.release(claim);
        finish();
      },
      (error: unknown) => {
        this.deliveries.release(claim);
        this.failed(request, response, error, deliveryId);
        finish();
      },
    );
  }

  /** A retry of a delivery still being handled: waits for that to end, then decides (rare). */
  private async afterEarlier(request: IncomingMessage, response: ServerResponse, verified: VerifiedEvent, receivedAt: Date, deliveryId: string | null): Promise<void> {
    const { dedupeKey } = verified;
    for (let earlier = this.deliveries.pending(dedupeKey); earlier !== undefined; earlier = this.deliveries.pending(dedupeKey)) await earlier;
    await new Promise<void>((resolve) => this.decide(request, response, verified, receivedAt, deliveryId, resolve));
  }

  handle(request: IncomingMessage, response: ServerResponse): void {
    const receivedAt = this.now();
    const method = request.method ?? '?';
    const path = request.url ?? '/';
    const deliveryId = deliveryIdOf(request);
    if ((method === 'GET' || method === 'HEAD') && (path === '/' || path.startsWith('/?'))) {
      answer(response, 200, 'svc webhook listener: POST events here\n', { 'Content-Type': 'text/plain; charset=utf-8' }, this.closing);
      return;
    }
    try {
      checkRequest(request, this.checks);
    } catch (error) {
      this.failed(request, response, error, deliveryId);
      return;
    }
    this.inFlight += 1;
    collectBody(request, this.maxBodyBytes, (error, body) => {
      try {
        if (body === null) throw error;
        const verified = verifyEvent(request, body, deliveryId, this.checks);
        if (this.deliveries.pending(verified.dedupeKey) !== undefined) {
          this.afterEarlier(request, response, verified, receivedAt, deliveryId).then(this.finished, (error: unknown) => {
            this.failed(request, response, error, deliveryId);
            this.finished();
          });
          return;
        }
        this.decide(request, response, verified, receivedAt, deliveryId, this.finished);
      } catch (error) {
        this.failed(request, response, error, deliveryId);
        this.finished();
      }
    });
  }
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

function secretsOf(option: RequestHandlerOptions['secrets']): readonly string[] | undefined {
  if (option === undefined) return undefined;
  const secrets = typeof option === 'string' ? [option] : [...option];
  if (secrets.length === 0 || secrets.some((secret) => secret === '')) throw new TypeError('webhook secrets must be non-empty strings');
  return secrets;
}
