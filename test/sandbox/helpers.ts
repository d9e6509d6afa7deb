// Drives a sandbox through plain HTTP, the way any client of the service would.

import { startSandbox, type RunningSandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { RecordingDispatcher } from './recording-dispatcher.js';
import { ExchangeLog } from './openapi-check.js';

export const DEFAULT_AUTH = `Basic ${Buffer.from('sandbox@example.com:sandbox').toString('base64')}`;
export const OTHER_USER = { email: 'other@example.com', password: 'other-pass' };
export const OTHER_AUTH = `Basic ${Buffer.from(`${OTHER_USER.email}:${OTHER_USER.password}`).toString('base64')}`;

export interface Harness {
  sandbox: RunningSandbox;
  dispatcher: RecordingDispatcher;
  api: (method: string, path: string, body?: unknown, init?: { auth?: string | null; headers?: Record<string, string> }) => Promise<ApiAnswer>;
  close: () => Promise<void>;
}

export interface ApiAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** A JSON answer as a record, for reading fields in assertions. */
export function obj(answer: ApiAnswer | unknown): Record<string, unknown> {
  const value = answer !== null && typeof answer === 'object' && 'json' in answer ? (answer as ApiAnswer).json : answer;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new Error(`expected a JSON object, got ${JSON.stringify(value)}`);
  }
  return value as Record<string, unknown>;
}

export async function request(
  baseUrl: string,
  method: string,
  path: string,
  body?: unknown,
  init: { auth?: string | null; headers?: Record<string, string> } = {},
): Promise<ApiAnswer> {
  const headers: Record<string, string> = { ...(init.headers ?? {}) };
  const auth = init.auth === undefined ? DEFAULT_AUTH : init.auth;
  if (auth !== null) headers['Authorization'] = auth;
  let payload: string | Buffer | undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) payload = body;
  else if (body !== undefined) {
    payload = JSON.stringify(body);
    headers['Content-Type'] ??= 'application/json';
  }
  const res = await fetch(`${baseUrl}${path}`, { method, headers, body: payload });
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * A sandbox on a free port. Every request and answer it serves is checked against its own
 * OpenAPI document; close() fails the test on any violation.
 */
export async function startHarness(options: SandboxOptions = {}): Promise<Harness> {
  const dispatcher = new RecordingDispatcher();
  const exchanges = new ExchangeLog();
  const sandbox = await startSandbox({
    port: 0,
    orderDelayMs: 40,
    messageStepMs: 20,
    users: [OTHER_USER],
    dispatcher,
    observe: exchanges.observe,
    ...options,
  });
  return {
    sandbox,
    dispatcher,
    api: (method, path, body, init) => request(sandbox.apiUrl, method, path, body, init),
    close: async () => {
      await sandbox.close();
      exchanges.assertClean();
    },
  };
}

/**
 * The sandbox's clock in a test: it follows real time until frozen; frozen, only advance() moves
 * it, so an order or a message stays in a state for exactly as long as the test wants it there.
 * Released, it goes on from where it stood (it never runs backwards).
 */
export class TestClock {
  private frozenAt: number | null = null;
  private offset = 0;
  readonly now = (): number => this.frozenAt ?? Date.now() + this.offset;

  freeze(): void {
    this.frozenAt = this.now();
  }

  advance(ms: number): void {
    if (this.frozenAt === null) throw new Error('TestClock.advance: freeze the clock first');
    this.frozenAt += ms;
  }

  release(): void {
    if (this.frozenAt === null) return;
    this.offset = this.frozenAt - Date.now();
    this.frozenAt = null;
  }
}

/** Polls until `check` returns a value that is not undefined; fails after `limitMs`. */
export async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, limitMs = 10_000): Promise<T> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

export async function createTenant(h: Harness, body: Record<string, unknown> = {}, auth?: string): Promise<string> {
  const answer = await h.api('POST', '/tenants', body, auth ? { auth } : {});
  if (answer.status !== 201) throw new Error(`tenant create failed: ${answer.status} ${answer.text}`);
  return obj(answer)['tenantId'] as string;
}

export function provisionBody(tenantId: string, numbers: string[], feature: Record<string, string> = {}): Record<string, unknown> {
  return {
    action: 'Provision',
    tenantId,
    phoneNumbers: numbers.map((number) => ({
      number,
      messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'P2P', ...feature },
    })),
  };
}

/** Provisions numbers and waits for the order to finish; returns the final order. */
export async function provisionAndWait(h: Harness, tenantId: string, numbers: string[], auth?: string): Promise<Record<string, unknown>> {
  const answer = await h.api('POST', '/phone-numbers/provision', provisionBody(tenantId, numbers), auth ? { auth } : {});
  if (answer.status !== 202) throw new Error(`provision failed: ${answer.status} ${answer.text}`);
  const orderId = obj(answer)['orderId'] as number;
  return eventually(async () => {
    const order = obj(await h.api('GET', `/phone-numbers/orders/${orderId}`, undefined, auth ? { auth } : {}));
    return order['status'] === 'Completed' || order['status'] === 'Failed' ? order : undefined;
  });
}

/** A sandbox API call that fails the test on any answer of 300 or above; the JSON object answered ({} when empty). */
export type StrictApi = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

export function strictApi(apiUrl: string, auth: string = DEFAULT_AUTH): StrictApi {
  return async (method, path, body) => {
    const answer = await request(apiUrl, method, path, body, { auth });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.text === '' ? {} : obj(answer);
  };
}

/** Provisions one number for the tenant and waits for its order to complete (failing after the deadline); the order id. */
export async function provisionActiveNumber(api: StrictApi, tenantId: string, number: string): Promise<number> {
  const order = await api('POST', '/phone-numbers/provision', provisionBody(tenantId, [number]));
  const orderId = order['orderId'] as number;
  await eventually(async () => ((await api('GET', `/phone-numbers/orders/${orderId}`))['status'] === 'Completed' ? true : undefined));
  return orderId;
}

export function enc(number: string): string {
  return encodeURIComponent(number);
}
