import type { Dispatcher } from 'undici';
import { ApiError, AuthError, CliError, InterruptedError, NetworkError, NotFoundError, UsageError } from '../errors.js';
import { redactJsonText, redactText } from './redact.js';

// The only module that imports undici. It knows the base URL, Basic auth, JSON in and out,
// timeouts, retries (decisions.md, "CLI behaviour"), the error bodies of the document, and the
// --debug trace. It never prints for people; callers render what it returns.

export type QueryValue = string | number | boolean | undefined | null | readonly string[];

export interface ApiRequest {
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

export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
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
  /** Extra secrets to scrub from the debug trace (webhook secrets the command is sending). */
  secrets?: readonly string[] | undefined;
  /** Most sockets kept per origin (bulk sends raise it to their concurrency). */
  connections?: number | undefined;
  userAgent?: string | undefined;
}

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);
const IDEMPOTENT = new Set(['GET', 'PUT', 'HEAD', 'DELETE']);
export const MAX_ATTEMPTS = 4;
export const MAX_RETRY_AFTER_MS = 30_000;
/** Network error codes that mean the request never left this machine, so a POST may be retried. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

let undiciModule: Promise<typeof import('./undici.js')> | undefined;

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 first compiles it with its baseline
 * tier (Liftoff), then recompiles it with its optimising tier in the background, and that second
 * compile keeps a short-lived CLI alive for 100-200 ms after its last request (perf-notes.md).
 * A command makes a handful of requests, so the baseline code is all it needs: the optimising
 * tier is turned off for WebAssembly only, before undici compiles its parser. Long bulk sends
 * ask for full speed instead.
 */
function loadUndici(throughput = false): Promise<typeof import('./undici.js')> {
  if (!undiciModule) {
    if (!throughput) {
      // Dynamic import keeps node:v8 off the start-up path of commands that never call the API.
      undiciModule = import('node:v8').then((v8) => {
        v8.setFlagsFromString('--liftoff-only');
        return import('./undici.js');
      });
    } else {
      undiciModule = import('./undici.js');
    }
  }
  return undiciModule;
}

export class ApiClient {
  private readonly authorization: string;
  private dispatcherPromise: Promise<Dispatcher> | undefined;
  private ownDispatcher: Dispatcher | undefined;
  private readonly secrets: string[];
  private throughput = false;

  constructor(private readonly options: ApiClientOptions) {
    this.authorization = `Basic ${Buffer.from(`${options.username}:${options.password}`, 'utf8').toString('base64')}`;
    this.secrets = [options.password, ...(options.secrets ?? [])].filter((s) => s.length >= 3);
  }

  get baseUrl(): string {
    return this.options.root.href.replace(/\/$/, '');
  }

  /**
   * For a long run of requests (a bulk send): let V8 optimise undici's HTTP parser fully. Must be
   * called before the first request to matter; a short command keeps the cheaper start-up.
   */
  preferThroughput(): void {
    this.throughput = true;
  }

  /** Adds a secret that must never appear in the debug trace. */
  addSecret(secret: string): void {
    if (secret.length >= 3) this.secrets.push(secret);
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
  private lastUrl: { path: string; query: Record<string, QueryValue> | undefined; url: URL } | undefined;

  private urlFor(path: string, query: Record<string, QueryValue> | undefined): URL {
    const last = this.lastUrl;
    if (last && last.path === path && sameQuery(last.query, query)) return last.url;
    const url = this.url(path, query);
    this.lastUrl = { path, query: query ? { ...query } : undefined, url };
    return url;
  }

  private async dispatcher(): Promise<Dispatcher> {
    if (this.options.dispatcher) return this.options.dispatcher;
    this.dispatcherPromise ??= (async () => {
      const undici = await loadUndici(this.throughput);
      const env = this.options.env;
      const httpsProxy = env['HTTPS_PROXY'] ?? env['https_proxy'];
      const httpProxy = env['HTTP_PROXY'] ?? env['http_proxy'];
      const connections = this.options.connections;
      let dispatcher: Dispatcher;
      if (httpsProxy || httpProxy) {
        // Loopback never goes through a proxy: that is where the sandbox lives.
        const noProxy = [env['NO_PROXY'] ?? env['no_proxy'] ?? '', 'localhost', '127.0.0.1', '::1']
          .filter((s) => s !== '')
          .join(',');
        dispatcher = new undici.EnvHttpProxyAgent({ httpProxy, httpsProxy, noProxy, connections, connect: { timeout: this.options.timeoutMs } });
      } else {
        dispatcher = new undici.Agent({ connect: { timeout: this.options.timeoutMs }, ...(connections ? { connections } : {}) });
      }
      this.ownDispatcher = dispatcher;
      return dispatcher;
    })();
    return this.dispatcherPromise;
  }

  private trace(line: string): void {
    this.options.debug?.(redactText(line, this.secrets));
  }

  async request(req: ApiRequest): Promise<ApiResponse> {
    const url = this.urlFor(req.path, req.query);
    const retryable = req.retry ?? IDEMPOTENT.has(req.method);
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(req, url, attempt);
      if (outcome.kind === 'answer') {
        const response = outcome.response;
        if (response.status < 400 || req.accept?.includes(response.status)) return response;
        const error = errorFromResponse(response, req.method, url);
        const retryAfterMs = parseRetryAfter(response.headers['retry-after'], this.options.clock.now());
        error.retryAfterMs = retryAfterMs;
        if (retryable && RETRY_STATUSES.has(response.status) && attempt < MAX_ATTEMPTS) {
          if (retryAfterMs !== undefined && retryAfterMs > MAX_RETRY_AFTER_MS) throw error;
          await this.pause(attempt, retryAfterMs, `${response.status}`);
          continue;
        }
        throw error;
      }
      const { error } = outcome;
      if (!(error instanceof NetworkError)) throw error;
      const mayRetry = retryable || !error.sent;
      if (mayRetry && attempt < MAX_ATTEMPTS && !isPermanentNetworkError(error)) {
        await this.pause(attempt, undefined, error.message);
        continue;
      }
      throw error;
    }
  }

  private async pause(attempt: number, retryAfterMs: number | undefined, why: string): Promise<void> {
    // Exponential backoff with full jitter on top of half the step, so that retries spread out.
    const step = 250 * 2 ** (attempt - 1);
    const backoff = step / 2 + Math.random() * (step / 2);
    const wait = Math.max(backoff, retryAfterMs ?? 0);
    this.trace(`* retrying after ${why} in ${Math.round(wait)} ms (attempt ${attempt + 1} of ${MAX_ATTEMPTS})`);
    try {
      await this.options.clock.sleep(wait, this.options.signal);
    } catch {
      throw new InterruptedError();
    }
  }

  private async attempt(
    req: ApiRequest,
    url: URL,
    attempt: number,
  ): Promise<{ kind: 'answer'; response: ApiResponse } | { kind: 'error'; error: unknown }> {
    const headers: Record<string, string> = {
      authorization: this.authorization,
      accept: 'application/json',
      'user-agent': this.options.userAgent ?? 'svc-cli',
    };
    let body: Uint8Array | string | undefined;
    if (req.json !== undefined) {
      body = JSON.stringify(req.json);
      headers['content-type'] = 'application/json';
    } else if (req.raw) {
      body = req.raw.body;
      headers['content-type'] = req.raw.contentType;
    }
    const timeoutMs = req.timeoutMs ?? this.options.timeoutMs;
    // A plain timer rather than AbortSignal.timeout: its weak timers and finalizers were about a
    // sixth of the CPU time of a bulk send of thousands of requests.
    // The timeout is undici's own, phase by phase (connect, headers, body: each within
    // --timeout), so that a request costs no timer or abort signal of its own: a bulk send makes
    // thousands, and those were a sixth of its CPU time.
    const signals: AbortSignal[] = [];
    if (this.options.signal && !req.finishOnInterrupt) signals.push(this.options.signal);
    if (req.signal) signals.push(req.signal);
    // AbortSignal.any costs a composite signal and listeners per request; a bulk send makes thousands.
    const signal = signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
    const started = performance.now();
    if (this.options.debug) {
      this.trace(`> ${req.method} ${url.href}${attempt > 1 ? ` (attempt ${attempt})` : ''}`);
      for (const [name, value] of Object.entries(headers)) {
        this.trace(`> ${name}: ${name === 'authorization' ? 'Basic [REDACTED]' : value}`);
      }
      if (body !== undefined) this.trace(`> ${describeBody(body, headers['content-type'] ?? '')}`);
    }
    let sentHeaders = false;
    try {
      const dispatcher = await this.dispatcher();
      const { request } = await loadUndici(this.throughput);
      const answer = await request(url, {
        method: req.method,
        headers,
        body,
        dispatcher,
        signal,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      });
      sentHeaders = true;
      const text = await answer.body.text();
      const responseHeaders = flattenHeaders(answer.headers);
      const response: ApiResponse = { status: answer.statusCode, headers: responseHeaders, data: undefined, text };
      if (this.options.debug) {
        this.trace(`< ${answer.statusCode} (${Math.round(performance.now() - started)} ms)`);
        for (const [name, value] of Object.entries(responseHeaders)) this.trace(`< ${name}: ${value}`);
        if (text !== '') this.trace(`< ${truncate(redactJsonText(text), 4000)}`);
      }
      response.data = parseBody(text, responseHeaders['content-type'], answer.statusCode, req.method, url);
      return { kind: 'answer', response };
    } catch (error) {
      if (error instanceof CliError) return { kind: 'error', error };
      if ((this.options.signal?.aborted && !req.finishOnInterrupt) || req.signal?.aborted) return { kind: 'error', error: new InterruptedError() };
      const networkError = toNetworkError(error, url, timeoutMs, sentHeaders);
      this.trace(`< ${networkError.message} (${Math.round(performance.now() - started)} ms)`);
      return { kind: 'error', error: networkError };
    }
  }

  async close(): Promise<void> {
    const own = this.ownDispatcher;
    this.ownDispatcher = undefined;
    this.dispatcherPromise = undefined;
    if (own) await own.close().catch(() => undefined);
  }
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

/** undici's header names are lower case already; repeated headers are joined. Runs per answer. */
function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return flat;
}

function parseBody(text: string, contentType: string | undefined, status: number, method: string, url: URL): unknown {
  if (text.trim() === '') return undefined;
  const looksJson = (contentType ?? '').includes('json') || /^\s*[[{"]/.test(text);
  if (!looksJson) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    if (status >= 400) return undefined;
    throw new ApiError(`The server answered ${method} ${url.pathname} with a body that is not valid JSON: ${firstLine(text)}`, {
      status,
    });
  }
}

export function firstLine(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text)?.[1];
  const line = (title ?? text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

function stringField(data: unknown, name: string): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value = (data as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The one mapping from an error answer to a typed error, tolerant of any body. */
export function errorFromResponse(response: ApiResponse, method: string, url: URL): CliError {
  const { status, data, text } = response;
  let message = stringField(data, 'message') ?? stringField(data, 'error') ?? stringField(data, 'detail');
  const title = stringField(data, 'title');
  const errorCode = stringField(data, 'errorCode') ?? stringField(data, 'code');
  const errors = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['errors'] : undefined;
  if (errors !== undefined && typeof errors === 'object' && errors !== null) {
    // ASP.NET-style validation problems: {"errors": {"field": ["reason"]}}.
    const details = Object.entries(errors as Record<string, unknown>)
      .map(([field, reasons]) => `${field}: ${Array.isArray(reasons) ? reasons.join('; ') : String(reasons)}`)
      .join(', ');
    if (details) message = message ? `${message} (${details})` : details;
  }
  if (!message) message = title ?? (text.trim() ? firstLine(text) : `empty answer`);
  const where = `${method} ${safeDecode(url.pathname)}`;
  const extra = { status, ...(title ? { title } : {}), ...(errorCode ? { errorCode } : {}) };
  if (status === 401) {
    if (message === 'empty answer') message = 'The service refused the credentials (HTTP 401)';
    return new AuthError(`${message}${errorCode ? ` (${errorCode})` : ''}`, {
      ...extra,
      hints: ['Check the username and password: `svc auth status` shows which ones are in use.'],
    });
  }
  if (status === 403) return new AuthError(`Permission denied for ${where}: ${message}`, extra);
  if (status === 404) return new NotFoundError(`Not found: ${where}${message !== 'empty answer' ? `: ${message}` : ''}`, extra);
  if (status === 400 || status === 409 || status === 413 || status === 415 || status === 422) {
    return new ApiError(`The server refused ${where} (${status}): ${message}`, extra);
  }
  return new ApiError(`${where} failed with HTTP ${status}: ${message}`, extra);
}

/** A path as the user would read it; a malformed escape (a path the user typed) is shown as sent. */
function safeDecode(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const TLS_TRUST_CODE = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|^ERR_TLS|^ERR_SSL/;

/** Failures that another attempt cannot mend: an untrusted certificate, a host that does not exist. */
function isPermanentNetworkError(error: NetworkError): boolean {
  const code = errorCode(error.cause) ?? '';
  return TLS_TRUST_CODE.test(code) || code === 'ENOTFOUND';
}

function toNetworkError(error: unknown, url: URL, timeoutMs: number, answered: boolean): NetworkError {
  const code = errorCode(error);
  const host = url.host;
  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return new NetworkError(`Cannot connect to ${host}: no connection within ${timeoutMs / 1000} s (--timeout)`, false, error);
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new NetworkError(`No answer from ${host} within ${timeoutMs / 1000} s (--timeout)`, true, error);
  }
  if (code !== undefined && NOT_SENT_CODES.has(code)) {
    const what = code === 'ECONNREFUSED' ? 'connection refused' : code === 'ENOTFOUND' ? 'host not found' : code;
    return new NetworkError(`Cannot connect to ${host}: ${what}`, false, error);
  }
  if (code !== undefined && TLS_TRUST_CODE.test(code)) {
    const detail = error instanceof Error ? error.message : code;
    return new NetworkError(
      `TLS failure talking to ${host}: ${detail} (${code}); for a private CA, point NODE_EXTRA_CA_CERTS at its PEM file`,
      false,
      error,
    );
  }
  const detail = error instanceof Error ? error.message : String(error);
  return new NetworkError(
    `The connection to ${host} failed${answered ? ' while reading the answer' : ''}: ${detail}${code ? ` (${code})` : ''}`,
    true,
    error,
  );
}

/** The JSON object of an answer that must have one; an empty or non-object body is an unexpected answer. */
export function objectBody(response: ApiResponse, what: string): Record<string, unknown> {
  const data = response.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) return data as Record<string, unknown>;
  const got = response.text.trim() === '' ? 'an empty body' : `"${firstLine(response.text)}"`;
  throw new ApiError(`Unexpected answer for ${what}: HTTP ${response.status} with ${got}`, { status: response.status });
}
