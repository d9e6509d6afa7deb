// startSandbox: the local emulator of the whole service on bare node:http.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_PREFIX } from '../domain/api/endpoints.js';
import { assembleSandbox } from './assemble.js';
import { BasicAuthenticator, DEFAULT_USER, type SandboxUser } from './auth.js';
import type { RouteTable } from './call.js';
import type { SandboxEngine } from './engine.js';
import { ApiError } from './errors.js';
import { faultInjector } from './faults.js';
import { sendError, sendJsonText } from './http-io.js';
import { logRequest, watchExchange } from './observe.js';
import { openApiDocument } from './openapi.js';
import { checkOptions, DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT, type SandboxOptions } from './options.js';
import { Router } from './router.js';
import { health } from './routes/health.js';
import { serveMedia, uploadLoa, uploadMedia } from './routes/media.js';
import { getMessage, sendMessage } from './routes/messages.js';
import { getNumber, getOrder, listActiveNumbers, provisionNumbers, updateNumber } from './routes/numbers.js';
import {
  listDeliveries,
  listFailedEvents,
  replayFailedEvent,
  simulateInbound,
  triggerDeliveryReceipt,
  triggerOrderStatus,
} from './routes/sandbox-only.js';
import { createTenant, getTenant, listTenants, updateTenant } from './routes/tenants.js';
import type { TickScheduler } from './scheduler.js';
import type { WebhookDispatcher } from './webhooks/types.js';

export { API_PREFIX } from '../domain/api/endpoints.js';
export { DEFAULT_MESSAGE_STEP_MS, DEFAULT_ORDER_DELAY_MS, DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT, parseUserSpec, type SandboxOptions } from './options.js';
export type { HttpExchange } from './observe.js';

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

/** The handler of every endpoint of the contract, by its name. */
function routeTable(engine: SandboxEngine, scheduler: TickScheduler): RouteTable {
  let openApiText: string | undefined;
  return {
    getOpenApi: (call) => {
      openApiText ??= JSON.stringify(openApiDocument(`${engine.baseUrl}${API_PREFIX}`), null, 2);
      sendJsonText(call.res, 200, openApiText);
    },
    getHealth: (call) => health(call, () => scheduler.size),
    listTenants,
    createTenant,
    getTenant,
    updateTenant,
    provisionNumbers,
    uploadLoa,
    getOrder,
    listActiveNumbers,
    getNumber,
    updateNumber,
    sendMessage,
    getMessage,
    uploadMedia,
    simulateInbound,
    triggerMessageReceived: simulateInbound,
    triggerDeliveryReceipt,
    triggerOrderStatus,
    listDeliveries,
    listFailedEvents,
    replayFailedEvent,
    getMedia: serveMedia,
  };
}

/** The answer to a request whose handler threw: its ApiError, or a 500 that the log explains. */
function answerFailure(req: IncomingMessage, res: ServerResponse, error: unknown, log: ((line: string) => void) | undefined): void {
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

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  checkOptions(options);
  const host = options.host ?? DEFAULT_SANDBOX_HOST;
  const log = options.log;
  const users = [...(options.users ?? [])];
  if (!users.some((u) => u.email.toLowerCase() === DEFAULT_USER.email)) users.unshift({ ...DEFAULT_USER });

  const { engine, scheduler, dispatcher, shutdown } = await assembleSandbox(options, log);
  const router = new Router(routeTable(engine, scheduler), engine, new BasicAuthenticator(users), faultInjector(options.faults ?? 0, options.random ?? Math.random));

  const observe = options.observe;
  const requestLog = options.logRequests === true ? log : undefined;
  const server: Server = createServer((req, res) => {
    if (observe !== undefined) watchExchange(req, res, observe);
    if (requestLog !== undefined) logRequest(req, res, requestLog);
    try {
      const pending = router.handle(req, res);
      if (pending !== undefined) pending.catch((error: unknown) => answerFailure(req, res, error, log));
    } catch (error) {
      answerFailure(req, res, error, log);
    }
  });
  server.keepAliveTimeout = 65_000;

  await listen(server, options.port ?? DEFAULT_SANDBOX_PORT, host).catch(async (error: unknown) => {
    await shutdown();
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
      await shutdown();
    })();
    return closing;
  };

  return { url, apiUrl: `${url}${API_PREFIX}`, port, host, users: users.map((u) => ({ ...u })), dispatcher, close };
}
