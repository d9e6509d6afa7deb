import type { Dispatcher } from 'undici';
import { CliError, InterruptedError, NetworkError } from '../errors.js';
import type { Clock } from '../clock.js';
import type { SecretRegistry } from '../output/secrets.js';
import { ENDPOINTS, endpointPath, type CalledEndpointName, type HasPathParams, type PathParams } from '../domain/api/endpoints.js';
import { checkAnswer } from './answers.js';
import { parseBody } from './bodies.js';
import { Deadlines, Exchanging, unwatchSignal, watchSignal } from './deadlines.js';
import { chooseProxy } from './proxy.js';
import { describeTransportFailure } from './failures.js';
import { errorFromResponse, parseRetryAfter } from './error-answers.js';
import { RequestUrls, type Query } from './request-url.js';
import { traceAnswer, traceRequest } from './trace.js';
import { nodeHttpTransport, TransportFailure, undiciTransport, type Transport } from './transport.js';

export { firstLine } from './answers.js';
// The error mapping lives in error-answers.ts; re-exported for the modules that import it from here.
export { errorFromResponse, parseRetryAfter } from './error-answers.js';

// The HTTP layer. It knows the base URL, Basic auth, JSON in and out, the whole-exchange
// deadline (--timeout, deadlines.ts), retries (docs/decisions.md#retries), what a good answer
// is for each endpoint (the contract in domain/api/endpoints.ts, checked by answers.ts), the error
// bodies of the document, and the --debug trace (trace.ts). The transport rules live in
// transport.ts and proxy.ts, under it. It never prints for people; callers render what it returns.

export type { QueryValue } from './request-url.js';

export interface ApiRequest {
  /** Which endpoint this is (the contract says what a good answer to it is), or `raw` (`svc api`): any 2xx. */
  call: CalledEndpointName | 'raw';
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD' | 'PATCH';
  /** Relative to `{base_url}/api/v1`; path segments must already be encoded. */
  path: string;
  query?: Query | undefined;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with the given content type (multipart uploads). */
  raw?: { body: Uint8Array | string; contentType: string } | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the per-request timeout. */
  timeoutMs?: number | undefined;
  /** Overrides whether failures are retried (default: by method, see docs/decisions.md#retries). */
  retry?: boolean | undefined;
  /** Error statuses returned as answers instead of thrown; the contract's by default (a health check's 503). */
  accept?: readonly number[] | undefined;
  /**
   * Ctrl-C does not abort this request once it is under way: a bulk send waits for the answers
   * in flight so that it can journal them (waits between retries still end on Ctrl-C).
   */
  finishOnInterrupt?: boolean | undefined;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** The parsed JSON body; undefined when the answer had no body. */
  data: unknown;
  /** The body as text ('' when empty). */
  text: string;
}

export interface ApiClientOptions {
  root: URL;
  username: string;
  password: string;
  timeoutMs: number;
  clock: Clock;
  env: Readonly<Record<string, string | undefined>>;
  /** Ctrl-C: aborts requests in flight and waits between retries. */
  signal?: AbortSignal | undefined;
  /** Receives the --debug trace, one line at a time. */
  debug?: ((line: string) => void) | undefined;
  /** An undici dispatcher to use instead of our own (tests inject a MockAgent). */
  dispatcher?: Dispatcher | undefined;
  /** The run's secret registry: the credentials are registered in it before any request. */
  secrets?: SecretRegistry | undefined;
  /** Most sockets kept per origin (bulk sends raise it to their concurrency). */
  connections?: number | undefined;
  userAgent?: string | undefined;
}

/** What a call by endpoint name adds to its request; `params` fill the path template. */
export type CallOptions<K extends CalledEndpointName> = Omit<ApiRequest, 'call' | 'method' | 'path'> &
  (HasPathParams<K> extends true ? { params: PathParams<K> } : { params?: undefined });

const NO_OPTIONS = Object.freeze({});
const NO_PARAMS = Object.freeze({});
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const IDEMPOTENT = new Set(['GET', 'PUT', 'HEAD', 'DELETE']);
export const MAX_ATTEMPTS = 4;
export const MAX_RETRY_AFTER_MS = 30_000;

type Attempt = { kind: 'answer'; response: ApiResponse; invalidJson: boolean } | { kind: 'error'; error: unknown };

export class ApiClient {
  private readonly authorization: string;
  private transportPromise: Promise<Transport> | undefined;
  private readonly deadlines = new Deadlines();
  private readonly urls: RequestUrls;
  private ownTransport: Transport | undefined;
  private throughput = false;
  private connections: number | undefined;

  constructor(private readonly options: ApiClientOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`, 'utf8').toString('base64')}`;
    this.urls = new RequestUrls(options.root);
    options.secrets?.addCredentials(options.username, options.password);
  }

  get baseUrl(): string {
    return this.options.root.href.replace(/\/$/, '');
  }

  /**
   * For a long run of requests (a bulk send): undici, with its HTTP parser fully optimised by V8,
   * and at most `connections` connections to the service (a send's --concurrency: without a cap,
   * undici opens a new connection whenever every open one is still reading its answer, about
   * twice as many as requests in flight). Must be called before the first request to matter; a
   * short command keeps the cheaper start-up.
   */
  preferThroughput(connections?: number): void {
    this.throughput = true;
    this.connections = connections;
  }

  /** A secret this command sends (a webhook secret): never shown in any output. */
  addSecret(secret: string): void {
    this.options.secrets?.add(secret);
  }

  url(path: string, query?: Query): URL {
    return this.urls.url(path, query);
  }

  /** A request to one endpoint of the contract: its method and path come from there. */
  call<K extends CalledEndpointName>(name: K, ...[options]: HasPathParams<K> extends true ? [CallOptions<K>] : [CallOptions<K>?]): Promise<ApiResponse> {
    // Each field by name rather than `{ ...rest }` of the options: a bulk send makes one request
    // object a recipient, and in the spread form a 30,000-recipient send moved 21 MB of them to
    // the old generation instead of 7 MB (node --trace-gc-nvp), so its peak memory grew with the
    // number of recipients (bench:send's 1,000,000 against 10,000).
    const given = (options ?? NO_OPTIONS) as CallOptions<K>;
    const endpoint = ENDPOINTS[name];
    return this.request({
      call: name,
      method: endpoint.method,
      path: endpointPath(name, (given.params ?? NO_PARAMS) as PathParams<K>),
      query: given.query,
      json: given.json,
      raw: given.raw,
      timeoutMs: given.timeoutMs,
      retry: given.retry,
      accept: given.accept,
      finishOnInterrupt: given.finishOnInterrupt,
      signal: given.signal,
    });
  }

  /**
   * node:http for plain http:// (loopback only: the settings refuse anything else, and the
   * transport checks the socket); undici for https, proxies, bulk sends and injected dispatchers.
   */
  private transport(): Promise<Transport> {
    this.transportPromise ??= (async () => {
      const { root, dispatcher, timeoutMs, env } = this.options;
      const connections = this.connections ?? this.options.connections;
      let transport: Transport;
      if (dispatcher === undefined && root.protocol === 'http:' && !this.throughput) {
        transport = await nodeHttpTransport({ connections, root });
      } else {
        const proxy = dispatcher === undefined ? chooseProxy(root, env) : undefined;
        transport = await undiciTransport({ dispatcher, connections, timeoutMs, proxyUrl: proxy?.url, throughput: this.throughput });
      }
      this.ownTransport = transport;
      return transport;
    })();
    return this.transportPromise;
  }

  private jsonHeaders: Readonly<Record<string, string>> | undefined;

  /** The headers of every request: a new object each time, for the caller to add to. */
  private baseHeaders(): Record<string, string> {
    return { authorization: this.authorization, accept: 'application/json', 'user-agent': this.options.userAgent ?? 'svc-cli' };
  }

  private trace = (line: string): void => {
    this.options.debug?.(line);
  };

  async request(req: ApiRequest): Promise<ApiResponse> {
    const url = this.urls.urlFor(req.path, req.query);
    const retryable = req.retry ?? IDEMPOTENT.has(req.method);
    const endpoint = req.call === 'raw' ? undefined : ENDPOINTS[req.call];
    const acceptErrors: readonly number[] | undefined = req.accept ?? (endpoint !== undefined && 'acceptErrors' in endpoint ? endpoint.acceptErrors : undefined);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(req, url, attempt);
      if (outcome.kind === 'answer') {
        const response = outcome.response;
        const accepted = acceptErrors?.includes(response.status) ?? false;
        if (response.status < 400 || accepted) {
          // No copy of the answer for the check unless its JSON was broken (rare).
          checkAnswer(outcome.invalidJson ? { ...response, invalidJson: true } : response, endpoint?.answer ?? 'any', () => this.urls.where(req.method, url), url, accepted);
          return response;
        }
        const error = errorFromResponse(response, req.method, url);
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.options.clock.now());
        error.retryAfterMs = retryAfterMs;
        if (retryable && RETRY_STATUSES.has(response.status) && attempt < MAX_ATTEMPTS) {
          if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) throw error;
          await this.pause(attempt, retryAfterMs, `${response.status}`, req.signal);
          continue;
        }
        throw error;
      }
      const { error } = outcome;
      if (!(error instanceof NetworkError)) throw error;
      const mayRetry = retryable || !error.sent;
      if (mayRetry && attempt < MAX_ATTEMPTS && !error.permanent) {
        await this.pause(attempt, undefined, error.message, req.signal);
        continue;
      }
      throw error;
    }
  }

  /** The wait before a retry: it ends early on Ctrl-C, and on the request's own signal (a caller's deadline). */
  private async pause(attempt: number, retryAfterMs: number | undefined, why: string, own: AbortSignal | undefined): Promise<void> {
    // Exponential backoff with full jitter on top of half the step, so that retries spread out.
    const step = 250 * 2 ** (attempt - 1);
    const backoff = step / 2 + Math.random() * (step / 2);
    const wait = Math.max(backoff, retryAfterMs ?? 0);
    this.trace(`* retrying after ${why} in ${Math.round(wait)} ms (attempt ${attempt + 1} of ${MAX_ATTEMPTS})`);
    const outer = this.options.signal;
    const signal = own === undefined || own === outer ? outer : outer === undefined ? own : AbortSignal.any([outer, own]);
    try {
      await this.options.clock.sleep(wait, signal);
    } catch {
      throw new InterruptedError();
    }
  }

  /** The headers and body of a request. */
  private payload(req: ApiRequest): { headers: Record<string, string>; body: Uint8Array | string | undefined } {
    if (req.json !== undefined) {
      // The same (frozen) headers for every JSON request: a bulk send makes tens of thousands.
      const headers = (this.jsonHeaders ??= Object.freeze({ ...this.baseHeaders(), 'content-type': 'application/json' }));
      return { headers, body: JSON.stringify(req.json) };
    }
    if (req.raw) return { headers: { ...this.baseHeaders(), 'content-type': req.raw.contentType }, body: req.raw.body };
    return { headers: this.baseHeaders(), body: undefined };
  }

  /** One exchange, bounded by --timeout and the outer signals; its answer, or the error it ended in. */
  private async attempt(req: ApiRequest, url: URL, attempt: number): Promise<Attempt> {
    const { headers, body } = this.payload(req);
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    const exchange = new Exchanging(timeoutMs);
    const first = this.options.signal && !req.finishOnInterrupt ? this.options.signal : undefined;
    const second = req.signal !== first ? req.signal : undefined;
    if (first) watchSignal(first, exchange);
    if (second) watchSignal(second, exchange);
    const debug = this.options.debug !== undefined;
    const started = debug ? performance.now() : 0;
    if (debug) traceRequest(this.trace, req.method, url, attempt, headers, body);
    let transport: Transport | undefined;
    try {
      // Once loaded, the transport is taken as it is: no await (a microtask) per request.
      transport = this.ownTransport ?? (await this.transport());
      // The deadline starts when the request can leave: loading the transport is not the exchange.
      this.deadlines.add(exchange);
      const answer = await transport.exchange({ method: req.method, url, headers, body, cancel: exchange, maxAnswerBytes: answerLimit(req) });
      if (debug) traceAnswer(this.trace, answer, url, performance.now() - started);
      const parsed = parseBody(answer.text, answer.headers['content-type']);
      const response: ApiResponse = { status: answer.status, headers: answer.headers, data: parsed.data, text: answer.text };
      return { kind: 'answer', response, invalidJson: parsed.invalid };
    } catch (error) {
      if (error instanceof CliError) return { kind: 'error', error };
      const timedOut = exchange.timedOut;
      if (!timedOut && (first?.aborted === true || second?.aborted === true)) return { kind: 'error', error: new InterruptedError() };
      const failure = error instanceof TransportFailure ? error : new TransportFailure('sent', error);
      const networkError = describeTransportFailure(failure, { url, timeoutMs, timedOut, proxy: transport?.proxy, base: this.options.root });
      this.trace(`< ${networkError.message} (${Math.round(performance.now() - started)} ms)`);
      return { kind: 'error', error: networkError };
    } finally {
      this.deadlines.delete(exchange);
      if (first) unwatchSignal(first, exchange);
      if (second) unwatchSignal(second, exchange);
    }
  }

  async close(): Promise<void> {
    const own = this.ownTransport;
    this.ownTransport = undefined;
    this.transportPromise = undefined;
    if (own) await own.close();
  }
}

/**
 * The most of an answer's body read (docs/limits.md): generous for a list page and for `svc api`,
 * whose answers may be lists; an object the service describes is a few kilobytes.
 */
export const LIST_ANSWER_LIMIT = 64 * 1024 * 1024;
export const OBJECT_ANSWER_LIMIT = 8 * 1024 * 1024;

function answerLimit(req: ApiRequest): number {
  if (req.call === 'raw') return LIST_ANSWER_LIMIT;
  return ENDPOINTS[req.call].answer === 'list' ? LIST_ANSWER_LIMIT : OBJECT_ANSWER_LIMIT;
}

/** The JSON object of an answer whose call promises one (answers.ts has checked it). */
export function objectOf<T extends Record<string, unknown> = Record<string, unknown>>(response: ApiResponse): T {
  return response.data as T;
}

// The typed calls, imported here only so that the bundler puts the whole API layer in one chunk:
// every command that reaches one call reaches this module and so all of them, and a command
// that talks to the API loads one file for it instead of three or four (start-up time, bench/startup.mjs).
// (media.ts stays out: `send --media-file` imports it on demand.)
import './tenants.js';
import './numbers.js';
import './lists.js';
import './messages.js';
import './orders.js';
import './health.js';
import './sandbox.js';
