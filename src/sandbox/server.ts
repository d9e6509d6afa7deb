// startSandbox: the local emulator of the whole service on bare node:http.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { BasicAuthenticator, DEFAULT_USER, type SandboxUser } from './auth.js';
import { ApiCall, type RouteHandler } from './call.js';
import { MESSAGE_RETENTION, SandboxEngine } from './engine.js';
import { ApiError } from './errors.js';
import { observedBodies, sendError, sendJsonText } from './http-io.js';
import { openApiDocument } from './openapi.js';
import { getMessage, sendMessage } from './routes/messages.js';
import { health } from './routes/health.js';
import { serveMedia, uploadLoa, uploadMedia } from './routes/media.js';
import {
  getNumber,
  getOrder,
  listActiveNumbers,
  provisionNumbers,
  updateNumber,
} from './routes/numbers.js';
import {
  listDeliveries,
  listFailedEvents,
  replayFailedEvent,
  simulateInbound,
  triggerDeliveryReceipt,
  triggerOrderStatus,
} from './routes/sandbox-only.js';
import { createTenant, getTenant, listTenants, updateTenant } from './routes/tenants.js';
import { TickScheduler } from './scheduler.js';
import { SandboxStore } from './state.js';
import { DurableState } from './state-file.js';
import { createWebhookDispatcher } from './webhooks/dispatcher.js';
import type { WebhookDispatcher } from './webhooks/types.js';
import { SANDBOX_DEFAULT_HOST as DEFAULT_SANDBOX_HOST, SANDBOX_DEFAULT_PORT as DEFAULT_SANDBOX_PORT } from '../domain/sandbox-defaults.js';

export { SANDBOX_DEFAULT_HOST as DEFAULT_SANDBOX_HOST, SANDBOX_DEFAULT_PORT as DEFAULT_SANDBOX_PORT } from '../domain/sandbox-defaults.js';
export const DEFAULT_ORDER_DELAY_MS = 2000;
export const DEFAULT_MESSAGE_STEP_MS = 300;
export const API_PREFIX = '/api/v1';

export interface SandboxOptions {
  /** Default 4010; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Persist everything to this JSON file and reload it on start. */
  stateFile?: string;
  /** Time for a P2P order to complete (A2P takes 5x). Default 2000. */
  orderDelayMs?: number;
  /** Time between two message status steps. Default 300. */
  messageStepMs?: number;
  /** Divides every sandbox delay (orders, messages, webhook retries). Default 1. */
  timeScale?: number;
  /** Share (0..1) of API requests answered 500, 503, 429 or dropped. Default 0. */
  faults?: number;
  /** Extra accounts; the default sandbox@example.com / sandbox is always present. */
  users?: SandboxUser[];
  /** Messages kept for reading; beyond it the oldest finished ones are forgotten. Default 100 000. */
  messageRetention?: number;
  /** Account-wide sends per second (token bucket, one second of burst); 0 or absent: no limit. */
  rateLimit?: number;
  /** The sandbox's clock (epoch ms): timestamps, order and message steps, throttling. Tests inject it. */
  now?: () => number;
  /** Log size (bytes) past which the state is compacted into its snapshot (tests). */
  compactBytes?: number;
  /** Injected webhook dispatcher (tests); otherwise the sandbox's own is created. */
  dispatcher?: WebhookDispatcher;
  /** One line per request and per problem; never carries credentials or secrets. */
  log?: (line: string) => void;
  /** Also log one line per request (method, path, status, time); off by default, it costs. */
  logRequests?: boolean;
  /** Sees every request and answer, bodies included (tests validate them against the OpenAPI document). */
  observe?: (exchange: HttpExchange) => void;
  /** Random source for fault injection (tests). */
  random?: () => number;
}

/** One request and its answer, as an observer sees them. */
export interface HttpExchange {
  method: string;
  /** Path and query, as sent. */
  url: string;
  requestHeaders: IncomingMessage['headers'];
  /** null when the handler did not read a body. */
  requestBody: Buffer | null;
  status: number;
  responseHeaders: ReturnType<ServerResponse['getHeaders']>;
  responseBody: Buffer;
}

export interface RunningSandbox {
  /** Base URL without /api/v1, e.g. http://127.0.0.1:4010. */
  url: string;
  /** `url` + /api/v1. */
  apiUrl: string;
  port: number;
  host: string;
  users: SandboxUser[];
  dispatcher: WebhookDispatcher;
  close(): Promise<void>;
}

interface Route {
  method: string;
  /** Path segments after /api/v1; null marks a parameter. */
  segments: (string | null)[];
  handler: RouteHandler;
}

function route(method: string, path: string, handler: RouteHandler): Route {
  return { method, segments: path.split('/').filter(Boolean).map((s) => (s.startsWith('{') ? null : s)), handler };
}

const FAULT_KINDS = ['500', '503', '429', 'drop'] as const;

function checkOptions(o: SandboxOptions): void {
  const nonNegative = (name: string, v: number | undefined): void => {
    if (v !== undefined && !(Number.isFinite(v) && v >= 0)) throw new RangeError(`${name} must be a number >= 0, got ${v}`);
  };
  nonNegative('orderDelayMs', o.orderDelayMs);
  nonNegative('messageStepMs', o.messageStepMs);
  if (o.timeScale !== undefined && !(Number.isFinite(o.timeScale) && o.timeScale > 0)) {
    throw new RangeError(`timeScale must be a number > 0, got ${o.timeScale}`);
  }
  if (o.faults !== undefined && !(o.faults >= 0 && o.faults <= 1)) {
    throw new RangeError(`faults must be between 0 and 1, got ${o.faults}`);
  }
  if (o.rateLimit !== undefined && !(Number.isFinite(o.rateLimit) && o.rateLimit >= 0)) {
    throw new RangeError(`rateLimit must be a number >= 0, got ${o.rateLimit}`);
  }
  if (o.port !== undefined && !(Number.isInteger(o.port) && o.port >= 0 && o.port <= 65535)) {
    throw new RangeError(`port must be an integer from 0 to 65535, got ${o.port}`);
  }
}

/** Parses a `--user EMAIL:PASSWORD` value. */
export function parseUserSpec(spec: string): SandboxUser {
  const colon = spec.indexOf(':');
  if (colon <= 0 || colon === spec.length - 1) throw new RangeError('a user is EMAIL:PASSWORD');
  return { email: spec.slice(0, colon), password: spec.slice(colon + 1) };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  checkOptions(options);
  const host = options.host ?? DEFAULT_SANDBOX_HOST;
  const timeScale = options.timeScale ?? 1;
  const faults = options.faults ?? 0;
  const random = options.random ?? Math.random;
  const log = options.log;
  const users = [...(options.users ?? [])];
  if (!users.some((u) => u.email.toLowerCase() === DEFAULT_USER.email)) users.unshift({ ...DEFAULT_USER });
  const auth = new BasicAuthenticator(users);

  const store = new SandboxStore();
  const now = options.now ?? Date.now;
  let durable: DurableState | undefined;

  const scheduler = new TickScheduler((error) => log?.(`scheduler task failed: ${String(error)}`), now);
  const dispatcher =
    options.dispatcher ?? createWebhookDispatcher({ timeScale, now, onChange: () => durable?.dispatcherChanged() });

  const engine = new SandboxEngine(
    store,
    scheduler,
    dispatcher,
    {
      orderDelayMs: (options.orderDelayMs ?? DEFAULT_ORDER_DELAY_MS) / timeScale,
      messageStepMs: (options.messageStepMs ?? DEFAULT_MESSAGE_STEP_MS) / timeScale,
      messageRetention: options.messageRetention,
      accountRateLimit: options.rateLimit,
    },
    now,
  );

  if (options.stateFile) {
    const file = options.stateFile;
    try {
      ({ state: durable } = await DurableState.open(
        file,
        store,
        dispatcher,
        (error) => log?.(`could not write the state file: ${error instanceof Error ? error.message : String(error)}`),
        { retention: options.messageRetention ?? MESSAGE_RETENTION, now, ...(options.compactBytes ? { compactBytes: options.compactBytes } : {}) },
      ));
    } catch (error) {
      // A file of another version, or one damaged by hand, is a bad input (left untouched), not a crash.
      scheduler.close();
      await dispatcher.close();
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== undefined) throw error;
      const reason = error instanceof Error ? error.message : String(error);
      if (/^state (file|log) /.test(reason)) throw new Error(reason);
      throw new Error(`state file ${file} is not a sandbox state this version can load (${reason}); move it away or pass another --state`);
    }
    engine.journal = durable;
  }

  const routes: Route[] = [
    route('GET', '/health', (call) => health(call, () => scheduler.size)),
    route('GET', '/tenants', listTenants),
    route('POST', '/tenants', createTenant),
    route('GET', '/tenants/{tenantId}', getTenant),
    route('PUT', '/tenants/{tenantId}', updateTenant),
    route('POST', '/phone-numbers/provision', provisionNumbers),
    route('POST', '/phone-numbers/loa', uploadLoa),
    route('GET', '/phone-numbers/orders/{orderId}', getOrder),
    route('GET', '/phone-numbers/active', listActiveNumbers),
    route('GET', '/phone-numbers/{phoneNumber}', getNumber),
    route('PUT', '/phone-numbers/{phoneNumber}', updateNumber),
    route('POST', '/messages', sendMessage),
    route('GET', '/messages/{messageId}', getMessage),
    route('POST', '/media', uploadMedia),
    route('POST', '/sandbox/inbound', simulateInbound),
    route('POST', '/sandbox/triggers/message-received', simulateInbound),
    route('POST', '/sandbox/triggers/delivery-receipt', triggerDeliveryReceipt),
    route('POST', '/sandbox/triggers/order-status', triggerOrderStatus),
    route('GET', '/sandbox/webhooks/deliveries', listDeliveries),
    route('GET', '/sandbox/webhooks/failed', listFailedEvents),
    route('POST', '/sandbox/webhooks/failed/{deliveryId}/replay', replayFailedEvent),
  ];

  let faultCounter = 0;
  let openApiText: string | undefined;

  /** Answers a fault instead of the request; true when it did. */
  function injectFault(req: IncomingMessage, res: ServerResponse): boolean {
    if (faults <= 0 || random() >= faults) return false;
    const kind = FAULT_KINDS[faultCounter++ % FAULT_KINDS.length];
    if (kind === 'drop') {
      req.socket.destroy();
    } else if (kind === '429') {
      sendError(res, new ApiError(429, 'RATE_LIMITED', 'Too many requests (sandbox fault injection)', { 'Retry-After': '1' }));
    } else if (kind === '503') {
      sendError(res, new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is unavailable (sandbox fault injection)'));
    } else {
      sendError(res, new ApiError(500, 'INTERNAL_ERROR', 'Internal error (sandbox fault injection)'));
    }
    return true;
  }

  /** The routes whose path matches one request path, each with its decoded parameters (null: bad URL encoding). */
  type PathMatch = { route: Route; params: string[] | null }[];

  function matchPath(rest: string): PathMatch {
    const parts = rest.split('/').filter(Boolean);
    const found: PathMatch = [];
    for (const r of routes) {
      if (r.segments.length !== parts.length) continue;
      const params: string[] = [];
      let ok = true;
      for (let i = 0; i < parts.length; i++) {
        const want = r.segments[i];
        const part = parts[i] as string;
        if (want === null) params.push(part);
        else if (want !== part) {
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      let decoded: string[] | null = params;
      try {
        decoded = params.map((p) => (p.includes('%') ? decodeURIComponent(p) : p));
      } catch {
        decoded = null;
      }
      found.push({ route: r, params: decoded });
    }
    return found;
  }

  // Path matches by path, so that a read repeated on one resource (the common case) does no
  // splitting, matching or decoding. Bounded: message ids are endless, so it starts over when full.
  // Long paths (no route has one) are matched each time, so that the cache stays small.
  const MATCH_CACHE_LIMIT = 4096;
  const MATCH_KEY_LIMIT = 200;
  const matches = new Map<string, PathMatch>();

  // handle() and handleApi() return the handler's promise only when it has one: reads answer
  // synchronously, with no promise, closure or microtask of their own on the hot path.
  function handleApi(req: IncomingMessage, res: ServerResponse, rest: string, query: string): Promise<void> | void {
    const owner = auth.authenticate(req.headers.authorization);
    let found = matches.get(rest);
    if (found === undefined) {
      found = matchPath(rest);
      if (rest.length <= MATCH_KEY_LIMIT) {
        if (matches.size >= MATCH_CACHE_LIMIT) matches.clear();
        matches.set(rest, found);
      }
    }
    const method = req.method;
    for (let i = 0; i < found.length; i++) {
      const m = found[i] as PathMatch[number];
      if (m.route.method !== method && !(m.route.method === 'GET' && method === 'HEAD')) continue;
      if (m.params === null) {
        const bad = rest.split('/').find((p) => {
          try {
            decodeURIComponent(p);
            return false;
          } catch {
            return true;
          }
        });
        throw new ApiError(400, 'VALIDATION_ERROR', `The path segment "${bad ?? ''}" is not valid URL encoding`);
      }
      return m.route.handler(new ApiCall(req, res, engine, owner, m.params, query));
    }
    if (found.length > 0) {
      throw new ApiError(405, 'METHOD_NOT_ALLOWED', `${method ?? ''} is not allowed on ${API_PREFIX}${rest}`, {
        Allow: [...new Set(found.map((m) => m.route.method))].join(', '),
      });
    }
    throw new ApiError(404, 'NOT_FOUND', `No endpoint ${method ?? ''} ${API_PREFIX}${rest}`);
  }

  function handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    let path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    if (path.startsWith('/media/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        throw new ApiError(405, 'METHOD_NOT_ALLOWED', 'Media links answer GET and HEAD only', { Allow: 'GET, HEAD' });
      }
      serveMedia(engine, req, res, path.slice('/media/'.length).split('/')[0] ?? '', query);
      return;
    }
    if (path !== API_PREFIX && !path.startsWith(`${API_PREFIX}/`)) {
      throw new ApiError(404, 'NOT_FOUND', `No endpoint at ${path}; the API is under ${API_PREFIX}`);
    }
    const rest = path.slice(API_PREFIX.length);
    if (rest === '/openapi.json' && (req.method === 'GET' || req.method === 'HEAD')) {
      // No authentication: it describes the API and holds nothing.
      openApiText ??= JSON.stringify(openApiDocument(`${engine.baseUrl}${API_PREFIX}`), null, 2);
      sendJsonText(res, 200, openApiText);
      return;
    }
    // The sandbox's own control endpoints stay reliable so that tests and the CLI can drive it.
    if (!rest.startsWith('/sandbox/') && injectFault(req, res)) return;
    return handleApi(req, res, rest, query);
  }

  function watch(req: IncomingMessage, res: ServerResponse, observe: (exchange: HttpExchange) => void): void {
    observedBodies.set(req, null);
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown): void => {
      if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
      else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
    };
    // writeHead(status, headers) does not put its headers where getHeaders() finds them.
    const headers: Record<string, unknown> = {};
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = ((...args: unknown[]) => {
      const given = args.find((a) => typeof a === 'object' && a !== null);
      if (Array.isArray(given)) {
        // The flat [name, value, ...] form of cached answers.
        for (let i = 0; i + 1 < given.length; i += 2) headers[String(given[i]).toLowerCase()] = given[i + 1];
      } else if (given) for (const [k, v] of Object.entries(given)) headers[k.toLowerCase()] = v;
      return writeHead(...args);
    }) as ServerResponse['writeHead'];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((...args: unknown[]) => {
      keep(args[0]);
      return write(...args);
    }) as ServerResponse['write'];
    // Observed as the answer is handed over, not on 'finish': a process killed right after its
    // client has read the answer has already reported it.
    let seen = false;
    res.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') keep(args[0]);
      if (!seen) {
        seen = true;
        observe({
          method: req.method ?? '',
          url: req.url ?? '',
          requestHeaders: req.headers,
          requestBody: observedBodies.get(req) ?? null,
          status: res.statusCode,
          responseHeaders: { ...res.getHeaders(), ...headers } as HttpExchange['responseHeaders'],
          responseBody: Buffer.concat(chunks),
        });
      }
      return end(...args);
    }) as ServerResponse['end'];
  }

  function fail(req: IncomingMessage, res: ServerResponse, error: unknown): void {
    if (res.headersSent || res.destroyed) {
      res.destroy();
      return;
    }
    if (error instanceof ApiError) {
      sendError(res, error);
      return;
    }
    log?.(`internal error on ${req.method ?? ''} ${(req.url ?? '').split('?')[0]}: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    sendError(res, new ApiError(500, 'INTERNAL_ERROR', 'Internal error in the sandbox'));
  }

  function logRequest(req: IncomingMessage, res: ServerResponse, write: (line: string) => void): void {
    const started = performance.now();
    res.on('finish', () => {
      const path = (req.url ?? '').split('?')[0];
      write(`${req.method ?? ''} ${path} ${res.statusCode} ${(performance.now() - started).toFixed(1)}ms`);
    });
  }

  const observe = options.observe;
  const requestLog = options.logRequests === true ? log : undefined;
  const server: Server = createServer((req, res) => {
    if (observe !== undefined) watch(req, res, observe);
    if (requestLog !== undefined) logRequest(req, res, requestLog);
    try {
      const pending = handle(req, res);
      if (pending !== undefined) pending.catch((error: unknown) => fail(req, res, error));
    } catch (error) {
      fail(req, res, error);
    }
  });
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_SANDBOX_PORT, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch(async (error: unknown) => {
    scheduler.close();
    await dispatcher.close();
    await durable?.close();
    throw error;
  });

  const port = (server.address() as AddressInfo).port;
  const url = `http://${urlHost(host)}:${port}`;
  engine.baseUrl = url;
  engine.resumeInFlight();

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      scheduler.close();
      await closed;
      await dispatcher.close();
      await durable?.close();
    })();
    return closing;
  };

  return { url, apiUrl: `${url}${API_PREFIX}`, port, host, users: users.map((u) => ({ ...u })), dispatcher, close };
}
