import type { Dispatcher } from 'undici';
import { isIP, type LookupFunction } from 'node:net';
import { isLocalhostName, isLoopbackAddress } from '../domain/urls.js';

// The transport rules, held at the socket, for both ways a request leaves:
//   - node:http, for plain http:// to loopback (the sandbox): no HTTP/2, TLS or WebAssembly
//     parser to load, so a command against the sandbox starts as fast as one GET can;
//   - undici, for https://, proxies, bulk sends (its pipelined parser is faster once warm) and
//     tests that inject a dispatcher.
// Either way: names under `localhost` resolve only to loopback (never through DNS), a plain
// http:// connection is refused unless the address actually connected to is loopback, and the
// caller's signal (which carries the whole-exchange deadline) stops connect, headers and body.

export interface Exchange {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Uint8Array | string | undefined;
  /** How the caller stops the exchange (its whole-exchange deadline, Ctrl-C). */
  cancel: Cancel;
  /** The most bytes of answer body read: past it the exchange fails with AnswerTooLarge, nothing more held. */
  maxAnswerBytes: number;
}

/** An answer whose body is longer than the caller takes (declared by Content-Length, or counted as it came). */
export class AnswerTooLarge extends Error {
  readonly code = 'ERR_SVC_ANSWER_TOO_LARGE';
  constructor(
    readonly limit: number,
    /** The Content-Length declared, or the bytes counted when reading stopped. */
    readonly size: number,
    readonly declared: boolean,
  ) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/** The Content-Length of an answer past the limit, as the failure to give (undefined when none is declared or it fits). */
function declaredTooLarge(contentLength: string | string[] | undefined, limit: number): AnswerTooLarge | undefined {
  const text = Array.isArray(contentLength) ? contentLength[0] : contentLength;
  if (text === undefined || !/^\d+$/.test(text.trim())) return undefined;
  const size = Number(text.trim());
  return size > limit ? new AnswerTooLarge(limit, size, true) : undefined;
}

/**
 * The caller's way to stop an exchange, cheaper than an AbortController per request: the
 * transport sets `onCancel` while the exchange is under way (and clears it when settled); once
 * cancelled, `cancelled` is true and `reason` says why, for a transport that looks later.
 */
export interface Cancel {
  readonly cancelled: boolean;
  readonly reason: unknown;
  onCancel: ((reason: unknown) => void) | undefined;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** How far an exchange got before it failed: whether the request may have reached the server. */
export type Stage = 'connect' | 'sent' | 'answer';

export class TransportFailure extends Error {
  constructor(
    readonly stage: Stage,
    override readonly cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

export interface Transport {
  exchange(exchange: Exchange): Promise<RawAnswer>;
  close(): Promise<void>;
  /** The proxy in use, as it may be shown (no credentials); undefined when direct. */
  readonly proxy: string | undefined;
}

/** Raised at the socket when a plain http:// connection reached a non-loopback address. */
export class NotLoopbackError extends Error {
  readonly code = 'ERR_SVC_NOT_LOOPBACK';
  constructor(host: string, address: string | undefined) {
    super(`plain http:// is allowed only to loopback, and ${host} connected to ${address ?? 'an unknown address'}`);
  }
}

/**
 * `localhost` and every name under it are loopback (RFC 6761): they are looked up as
 * `localhost` (the hosts file), never sent to DNS, and a non-loopback answer is refused.
 * Other names resolve normally.
 */
export function pinnedLookup(base: LookupFunction): LookupFunction {
  return ((hostname: string, options: unknown, callback: unknown) => {
    const cb = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const opts = (typeof options === 'function' ? {} : (options ?? {})) as Record<string, unknown>;
    if (!isLocalhostName(hostname)) {
      (base as (h: string, o: unknown, c: unknown) => void)(hostname, opts, cb);
      return;
    }
    (base as (h: string, o: unknown, c: unknown) => void)('localhost', opts, (error: Error | null, address: unknown, family?: number) => {
      if (error) return cb(error);
      const list = Array.isArray(address) ? (address as { address: string; family: number }[]) : [{ address: address as string, family: family ?? 4 }];
      const bad = list.find((entry) => !isLoopbackAddress(entry.address));
      if (bad !== undefined || list.length === 0) return cb(new NotLoopbackError(hostname, bad?.address));
      if (Array.isArray(address)) cb(null, list);
      else cb(null, list[0]!.address, list[0]!.family);
    });
  }) as LookupFunction;
}

export function checkLoopbackSocket(url: URL, remoteAddress: string | undefined): NotLoopbackError | undefined {
  if (url.protocol !== 'http:') return undefined;
  return remoteAddress !== undefined && isLoopbackAddress(remoteAddress) ? undefined : new NotLoopbackError(url.host, remoteAddress);
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL', 'UND_ERR_CONNECT_TIMEOUT', 'ERR_SVC_NOT_LOOPBACK']);

export function errorCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Codes of a connection that failed before a byte of the request was written. */
export function neverSent(error: unknown): boolean {
  const code = errorCode(error);
  return (code !== undefined && NOT_SENT_CODES.has(code)) || /^(ERR_TLS|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO)/.test(code ?? '');
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name] = typeof value === 'string' ? value : value.join(', ');
  }
  return flat;
}

// ---------------------------------------------------------------------------------------------
// node:http, plain http:// to loopback only.

export async function nodeHttpTransport(options: { connections?: number | undefined; root: URL }): Promise<Transport> {
  const http = await import('node:http');
  // An IP address is never looked up, so node:dns is loaded only for a name.
  const byName = isIP(options.root.hostname.replace(/^\[|\]$/g, '')) === 0;
  const lookup = byName ? pinnedLookup((await import('node:dns')).lookup as LookupFunction) : undefined;
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: options.connections ?? Infinity,
    ...(lookup ? { lookup } : {}),
  } as ConstructorParameters<typeof http.Agent>[0]);
  return {
    proxy: undefined,
    close: async () => agent.destroy(),
    exchange: (x) =>
      new Promise<RawAnswer>((resolve, reject) => {
        let stage: Stage = 'connect';
        let settled = false;
        const fail = (error: unknown): void => {
          if (settled) return;
          settled = true;
          x.cancel.onCancel = undefined;
          request.destroy();
          reject(new TransportFailure(stage, error));
        };
        const request = http.request(x.url, { method: x.method, headers: x.headers, agent });
        // Nothing is written until the socket's peer has passed the loopback check.
        request.on('socket', (socket) => {
          const connected = (): void => {
            const refused = checkLoopbackSocket(x.url, socket.remoteAddress);
            if (refused) return fail(refused);
            stage = 'sent';
            request.end(x.body);
          };
          if (socket.connecting) socket.once('connect', connected);
          else connected();
        });
        request.on('error', fail);
        // A 101 without our asking is an answer too (an unexpected one); the socket is not ours to keep.
        request.on('upgrade', (response, socket) => {
          socket.destroy();
          if (settled) return;
          settled = true;
          x.cancel.onCancel = undefined;
          resolve({ status: response.statusCode ?? 101, headers: flattenHeaders(response.headers), text: '' });
        });
        request.on('response', (response) => {
          stage = 'answer';
          const declared = declaredTooLarge(response.headers['content-length'], x.maxAnswerBytes);
          if (declared) return fail(declared);
          const chunks: Buffer[] = [];
          let bytes = 0;
          response.on('data', (chunk: Buffer) => {
            bytes += chunk.length;
            if (bytes > x.maxAnswerBytes) return fail(new AnswerTooLarge(x.maxAnswerBytes, bytes, false));
            chunks.push(chunk);
          });
          response.on('error', fail);
          response.on('aborted', () => fail(Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' })));
          response.on('end', () => {
            if (!response.complete) {
              fail(Object.assign(new Error('the connection closed before the answer was complete'), { code: 'ECONNRESET' }));
              return;
            }
            if (settled) return;
            settled = true;
            x.cancel.onCancel = undefined;
            resolve({ status: response.statusCode ?? 0, headers: flattenHeaders(response.headers), text: Buffer.concat(chunks).toString('utf8') });
          });
        });
        if (x.cancel.cancelled) return fail(x.cancel.reason ?? new Error('aborted'));
        x.cancel.onCancel = fail;
      }),
  };
}

// ---------------------------------------------------------------------------------------------
// undici: https, proxies, throughput, injected dispatchers.

export interface UndiciTransportOptions {
  connections?: number | undefined;
  timeoutMs: number;
  /** The proxy URL to go through (already chosen against NO_PROXY); undefined: direct. */
  proxyUrl?: URL | undefined;
  /** An injected dispatcher (tests). */
  dispatcher?: Dispatcher | undefined;
  throughput: boolean;
}

let undiciModule: Promise<typeof import('./undici.js')> | undefined;

/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 first compiles it with its baseline
 * tier (Liftoff), then recompiles it with its optimising tier in the background, and that second
 * compile keeps a short-lived CLI alive for 100-200 ms after its last request (perf-notes.md).
 * A command makes a handful of requests, so the baseline code is all it needs: the optimising
 * tier is turned off for WebAssembly only, before undici compiles its parser. Long bulk sends
 * ask for full speed instead.
 */
function loadUndici(throughput: boolean): Promise<typeof import('./undici.js')> {
  if (!undiciModule) {
    if (!throughput) {
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

export function shownProxy(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

export async function undiciTransport(options: UndiciTransportOptions): Promise<Transport> {
  const undici = await loadUndici(options.throughput);
  const dns = await import('node:dns');
  let own: Dispatcher | undefined;
  let dispatcher: Dispatcher;
  if (options.dispatcher) dispatcher = options.dispatcher;
  else {
    const lookup = pinnedLookup(dns.lookup as LookupFunction);
    const base = undici.buildConnector({ timeout: options.timeoutMs, lookup } as Parameters<typeof undici.buildConnector>[0]);
    const connect: typeof base = (opts, callback) =>
      base(opts, (error, socket) => {
        if (error || socket === null) return callback(error, null as never);
        const refused = opts.protocol === 'http:' ? checkLoopbackSocket(new URL(`http://${opts.host}`), socket.remoteAddress) : undefined;
        if (refused) {
          socket.destroy();
          return callback(refused, null as never);
        }
        return callback(null, socket);
      });
    const connections = options.connections;
    own = options.proxyUrl
      ? new undici.ProxyAgent({ uri: options.proxyUrl.href, ...(connections ? { connections } : {}), proxyTls: { timeout: options.timeoutMs, lookup } as never, requestTls: { timeout: options.timeoutMs } })
      : new undici.Agent({ connect, ...(connections ? { connections } : {}) });
    dispatcher = own;
  }
  // The origin and path of the last URL: a bulk send posts to one URL (the same object) each
  // time, and URL#origin builds a new string on every read.
  let last: { url: URL; origin: string; path: string } | undefined;
  const target = (url: URL): { origin: string; path: string } => {
    if (last?.url !== url) last = { url, origin: url.origin, path: `${url.pathname}${url.search}` };
    return last;
  };
  return {
    proxy: options.proxyUrl ? shownProxy(options.proxyUrl) : undefined,
    close: async () => {
      if (own) await own.close().catch(() => undefined);
    },
    exchange: (x) =>
      new Promise<RawAnswer>((resolve, reject) => {
        const handler = new AnswerHandler(x.cancel, x.maxAnswerBytes, resolve, reject, undici.headerNameToString);
        if (x.cancel.cancelled) return handler.onError(x.cancel.reason);
        x.cancel.onCancel = handler.cancel;
        const { origin, path } = target(x.url);
        dispatcher.dispatch(
          {
            origin,
            path,
            method: x.method as Dispatcher.HttpMethod,
            headers: x.headers,
            body: x.body ?? null,
            // The whole-exchange deadline is the caller's cancel; these only stop undici's own
            // defaults (300 s) from being the bound.
            headersTimeout: 0,
            bodyTimeout: 0,
          },
          handler,
        );
      }),
  };
}

/**
 * undici's dispatch handler for one exchange: collects the answer's chunks and settles once.
 * (undici's request() wraps every answer in a Readable stream, a cost per request that a bulk
 * send paid ten thousand times over; the answers here are small JSON documents read whole.)
 */
class AnswerHandler implements Dispatcher.DispatchHandler {
  private abort: ((reason?: Error) => void) | undefined;
  private answered = false;
  private settled = false;
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly stop: Cancel,
    private readonly maxBytes: number,
    private readonly resolve: (answer: RawAnswer) => void,
    private readonly reject: (failure: TransportFailure) => void,
    private readonly headerName: (name: Buffer | string) => string,
  ) {}

  /** The caller's deadline or Ctrl-C: settles now, and stops the request wherever it is. */
  readonly cancel = (reason: unknown): void => {
    const error = reason instanceof Error ? reason : new Error(String(reason));
    this.abort?.(error);
    this.onError(error);
  };

  onConnect(abort: (reason?: Error) => void): void {
    if (this.settled) {
      abort(this.stop.reason instanceof Error ? this.stop.reason : new Error('aborted'));
      return;
    }
    this.abort = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], _resume: () => void, _statusText: string): boolean {
    // 1xx interim answers are not the answer.
    if (statusCode < 200) return true;
    this.answered = true;
    this.status = statusCode;
    this.headers = rawHeadersToRecord(rawHeaders, this.headerName);
    const declared = declaredTooLarge(this.headers['content-length'], this.maxBytes);
    if (declared) this.cancel(declared);
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (this.bytes > this.maxBytes) {
      this.cancel(new AnswerTooLarge(this.maxBytes, this.bytes, false));
      return false;
    }
    this.chunks.push(chunk);
    return true;
  }

  onComplete(): void {
    if (this.settled) return;
    this.settled = true;
    this.stop.onCancel = undefined;
    const { chunks } = this;
    const text = chunks.length === 0 ? '' : chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, text });
  }

  onError(error: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.stop.onCancel = undefined;
    this.reject(new TransportFailure(this.answered ? 'answer' : neverSent(error) ? 'connect' : 'sent', error));
  }
}

/** undici's raw header list (name, value, name, value...) as one lower-case record; repeats joined with ", ". */
function rawHeadersToRecord(raw: Buffer[] | string[], headerName: (name: Buffer | string) => string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = headerName(raw[i]!);
    const value = raw[i + 1]!.toString();
    const seen = headers[name];
    headers[name] = seen === undefined ? value : `${seen}, ${value}`;
  }
  return headers;
}
