import type { Dispatcher } from 'undici';
import { CliError, InterruptedError, NetworkError, UsageError } from '../errors.js';
import type { Clock } from '../clock.js';
import type { SecretRegistry } from '../output/secrets.js';
import { ANSWERS, checkAnswer, safeLocation, type ApiCall } from './answers.js';
import { chooseProxy } from './proxy.js';
import { redactJsonText, traceHeaderValue } from './redact.js';
import { describeTransportFailure } from './failures.js';
import { errorFromResponse, parseRetryAfter, readablePath } from './error-answers.js';
import { nodeHttpTransport, TransportFailure, undiciTransport, type Cancel, type Transport } from './transport.js';

export { firstLine } from './answers.js';
// The error mapping lives in error-answers.ts; re-exported for the modules that import it from here.
export { errorFromResponse, parseRetryAfter } from './error-answers.js';

// The HTTP layer. It knows the base URL, Basic auth, JSON in and out, the whole-exchange
// deadline (--timeout), retries (decisions.md, "CLI behaviour"), what a good answer is for each
// call (answers.ts), the error bodies of the document, and the --debug trace. The transport
// rules live in transport.ts and proxy.ts, under it. It never prints for people; callers render
// what it returns.

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

export interface ApiRequest {
  /** Which call this is: answers.ts says what a good answer to it is. */
  call: ApiCall;
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'HEAD' | 'PATCH';
  /** Relative to `{base_url}/api/v1`; path segments must already be encoded. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as is, with the given content type (multipart uploads). */
  raw?: { body: Uint8Array | string; contentType: string } | undefined;
  signal?: AbortSignal | undefined;
  /** Overrides the per-request timeout. */
  timeoutMs?: number | undefined;
  /** Overrides whether failures are retried (default: by method, see decisions.md). */
  retry?: boolean | undefined;
  /** Error statuses returned as answers instead of thrown (a health check's 503, say). */
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

// Clock lives in src/clock.ts; re-exported for the modules that still import it from here.
export type { Clock } from '../clock.js';

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

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const IDEMPOTENT = new Set(['GET', 'PUT', 'HEAD', 'DELETE']);
export const MAX_ATTEMPTS = 4;
export const MAX_RETRY_AFTER_MS = 30_000;

export class ApiClient {
  private readonly authorization: string;
  private transportPromise: Promise<Transport> | undefined;
  private readonly deadlines = new Deadlines();
  private ownTransport: Transport | undefined;
  private throughput = false;
  private connections: number | undefined;

  constructor(private readonly options: ApiClientOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`, 'utf8').toString('base64')}`;
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

  url(path: string, query?: Record<string, QueryValue>): URL {
    const root = this.options.root;
    const url = new URL(path.replace(/^\/+/, ''), root);
    // URL resolution lets `\\host/x`, `http:host/x` or `../..` leave the API root; the request
    // would then carry the credentials to another host, or over plain HTTP past the transport rule.
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname)) {
      throw new UsageError(`The path "${path}" leads outside ${root.href}; give a path under it, like /tenants`);
    }
    for (const [key, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, String(v));
      else url.searchParams.set(key, String(value));
    }
    return url;
  }

  /** The last URL built, reused while requests keep going to the same place (a bulk send). */
  private lastUrl: { path: string; query: Record<string, QueryValue> | undefined; frozen: Readonly<Record<string, QueryValue>> | undefined; url: URL } | undefined;

  private urlFor(path: string, query: Record<string, QueryValue> | undefined): URL {
    const last = this.lastUrl;
    // A frozen query (a bulk send's, the same object each time) is the same query when it is the same object.
    if (last && last.path === path && ((last.frozen === query && query !== undefined) || sameQuery(last.query, query))) return last.url;
    const url = this.url(path, query);
    this.lastUrl = { path, query: query ? { ...query } : undefined, frozen: query !== undefined && Object.isFrozen(query) ? query : undefined, url };
    return url;
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

  /** The last `where`, reused while requests keep going to the same place (a bulk send). */
  private lastWhere: { method: string; url: URL; text: string } | undefined;

  /** `GET /tenants`: a request as the user knows it, relative to the API root. */
  private where(method: string, url: URL): string {
    const last = this.lastWhere;
    if (last !== undefined && last.url === url && last.method === method) return last.text;
    const text = this.describeWhere(method, url);
    this.lastWhere = { method, url, text };
    return text;
  }

  private describeWhere(method: string, url: URL): string {
    const rootPath = this.options.root.pathname;
    const path = url.pathname.startsWith(rootPath) ? `/${url.pathname.slice(rootPath.length)}` : url.pathname;
    return `${method} ${readablePath(path)}`;
  }

  private trace(line: string): void {
    this.options.debug?.(line);
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    const url = this.urlFor(req.path, req.query);
    const retryable = req.retry ?? IDEMPOTENT.has(req.method);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(req, url, attempt);
      if (outcome.kind === 'answer') {
        const response = outcome.response;
        const accepted = req.accept?.includes(response.status) ?? false;
        if (response.status < 400 || accepted) {
          // No copy of the answer for the check unless its JSON was broken (rare).
          checkAnswer(outcome.invalidJson ? { ...response, invalidJson: true } : response, ANSWERS[req.call], () => this.where(req.method, url), url, accepted);
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

  private async attempt(
    req: ApiRequest,
    url: URL,
    attempt: number,
  ): Promise<{ kind: 'answer'; response: ApiResponse; invalidJson: boolean } | { kind: 'error'; error: unknown }> {
    let headers: Record<string, string>;
    let body: Uint8Array | string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      // The same (frozen) headers for every JSON request: a bulk send makes tens of thousands.
      headers = this.jsonHeaders ??= Object.freeze({ ...this.baseHeaders(), 'content-type': 'application/json' });
    } else if (req.raw) {
      body = req.raw.body;
      headers = { ...this.baseHeaders(), 'content-type': req.raw.contentType };
    } else {
      headers = this.baseHeaders();
    }
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    // --timeout bounds the whole exchange, connect to last body byte. A bulk send makes tens of
    // thousands of exchanges, so none of them gets its own timer or AbortController: one timer
    // serves every deadline of the exchanges in flight, and each outer signal (Ctrl-C, a bulk
    // send's cut-off) gets one listener for all of them.
    const exchange = new Exchanging(timeoutMs);
    const first = this.options.signal && !req.finishOnInterrupt ? this.options.signal : undefined;
    const second = req.signal !== first ? req.signal : undefined;
    if (first) watchSignal(first, exchange);
    if (second) watchSignal(second, exchange);
    const started = this.options.debug ? performance.now() : 0;
    if (this.options.debug) {
      this.trace(`> ${req.method} ${url.href}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      for (const [name, value] of Object.entries(headers)) this.trace(`> ${name}: ${traceHeaderValue(name, value)}`);
      if (body !== undefined) this.trace(`> ${describeBody(body, headers['content-type'] ?? '')}`);
    }
    let transport: Transport | undefined;
    try {
      // Once loaded, the transport is taken as it is: no await (a microtask) per request.
      transport = this.ownTransport ?? (await this.transport());
      // The deadline starts when the request can leave: loading the transport is not the exchange.
      this.deadlines.add(exchange);
      const answer = await transport.exchange({ method: req.method, url, headers, body, cancel: exchange });
      const response: ApiResponse = { status: answer.status, headers: answer.headers, data: undefined, text: answer.text };
      if (this.options.debug) {
        this.trace(`< ${answer.status} (${Math.round(performance.now() - started)} ms)`);
        for (const [name, value] of Object.entries(answer.headers)) {
          // A redirect's target is shown as the error shows it: no userinfo, no query.
          this.trace(`< ${name}: ${name === 'location' ? (safeLocation(value, url) ?? '') : traceHeaderValue(name, value)}`);
        }
        if (answer.text !== '') this.trace(`< ${truncate(redactJsonText(answer.text), 4000)}`);
      }
      const parsed = parseBody(answer.text, answer.headers['content-type']);
      response.data = parsed.data;
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

/** One exchange under way: what its transport sees as its cancel, with the exchange's deadline. */
class Exchanging implements Cancel {
  cancelled = false;
  reason: unknown = undefined;
  onCancel: ((reason: unknown) => void) | undefined = undefined;
  timedOut = false;
  deadline = Infinity;

  constructor(readonly timeoutMs: number) {}

  cancel(reason: unknown): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.reason = reason;
    this.onCancel?.(reason);
  }

  expire(): void {
    if (this.cancelled) return;
    this.timedOut = true;
    this.cancel(new Error(`no complete answer within ${this.timeoutMs / 1000} s`));
  }
}

/**
 * The deadlines of the exchanges in flight, on one timer armed for the earliest of them. Its
 * exchanges start in deadline order when they share a timeout (a bulk send), so the timer is
 * re-armed about once a timeout period rather than once a request; it is cleared when none is
 * left in flight, so it never holds the process open.
 */
class Deadlines {
  private readonly live = new Set<Exchanging>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedFor = Infinity;

  add(exchange: Exchanging): void {
    exchange.deadline = performance.now() + exchange.timeoutMs;
    this.live.add(exchange);
    if (exchange.deadline < this.armedFor) this.arm(exchange.deadline);
  }

  delete(exchange: Exchanging): void {
    if (!this.live.delete(exchange) || this.live.size > 0) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.armedFor = Infinity;
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => this.expire(), Math.max(0, Math.ceil(at - performance.now())));
  }

  private expire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const exchange of this.live) {
      if (exchange.deadline <= now) {
        this.live.delete(exchange);
        exchange.expire();
      } else if (exchange.deadline < next) next = exchange.deadline;
    }
    if (next !== Infinity) this.arm(next);
  }
}

/** The exchanges in flight under each outer signal: one abort listener per signal, not per request. */
const watched = new WeakMap<AbortSignal, Set<Exchanging>>();

function watchSignal(signal: AbortSignal, exchange: Exchanging): void {
  if (signal.aborted) {
    exchange.cancel(new InterruptedError());
    return;
  }
  let live = watched.get(signal);
  if (live === undefined) {
    const set = new Set<Exchanging>();
    live = set;
    watched.set(signal, set);
    signal.addEventListener(
      'abort',
      () => {
        for (const each of [...set]) each.cancel(new InterruptedError());
        set.clear();
      },
      { once: true },
    );
  }
  live.add(exchange);
}

function unwatchSignal(signal: AbortSignal, exchange: Exchanging): void {
  watched.get(signal)?.delete(exchange);
}

function sameQuery(a: Record<string, QueryValue> | undefined, b: Record<string, QueryValue> | undefined): boolean {
  if (a === b) return true;
  const keysA = Object.keys(a ?? {});
  const keysB = Object.keys(b ?? {});
  if (keysA.length !== keysB.length) return false;
  return keysA.every((key) => {
    const x = a?.[key];
    const y = b?.[key];
    return Array.isArray(x) || Array.isArray(y) ? JSON.stringify(x) === JSON.stringify(y) : x === y;
  });
}

function describeBody(body: Uint8Array | string, contentType: string): string {
  // Redacted before it is cut short: a cut JSON text no longer parses, and its secret-named fields would show.
  if (typeof body === 'string' && contentType.includes('json')) return truncate(redactJsonText(body), 4000);
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  return `[${length} bytes of ${contentType.split(';')[0] || 'data'}]`;
}

function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}... [${text.length - max} more characters]` : text;
}

/** The JSON of a body, when it looks like JSON; `invalid` when it looked like JSON and did not parse. */
function parseBody(text: string, contentType: string | undefined): { data: unknown; invalid: boolean } {
  // The usual answer, a JSON object: parsed without a trimmed copy and a regular expression first.
  if (text.charCodeAt(0) === 0x7b) {
    try {
      return { data: JSON.parse(text) as unknown, invalid: false };
    } catch {
      return { data: undefined, invalid: true };
    }
  }
  if (text.trim() === '') return { data: undefined, invalid: false };
  const looksJson = (contentType ?? '').includes('json') || /^\s*[[{"]/.test(text);
  if (!looksJson) return { data: undefined, invalid: false };
  try {
    return { data: JSON.parse(text) as unknown, invalid: false };
  } catch {
    return { data: undefined, invalid: true };
  }
}

/** The JSON object of an answer whose call promises one (answers.ts has checked it). */
export function objectOf<T extends Record<string, unknown> = Record<string, unknown>>(response: ApiResponse): T {
  return response.data as T;
}

// The typed calls, imported here only so that the bundler puts the whole API layer in one chunk:
// every command that reaches one call reaches this module and so all of them, and a command
// that talks to the API loads one file for it instead of three or four (start-up, issue 12).
// (media.ts stays out: `send --media-file` imports it on demand.)
import './tenants.js';
import './numbers.js';
import './lists.js';
import './messages.js';
import './orders.js';
import './health.js';
import './sandbox.js';
