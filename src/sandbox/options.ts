// The options of a sandbox, their defaults and their checks.

import type { SandboxUser } from './auth.js';
import type { HttpExchange } from './observe.js';
import type { WebhookDispatcher } from './webhooks/types.js';

export { SANDBOX_DEFAULT_HOST as DEFAULT_SANDBOX_HOST, SANDBOX_DEFAULT_PORT as DEFAULT_SANDBOX_PORT } from '../domain/sandbox-defaults.js';
export const DEFAULT_ORDER_DELAY_MS = 2000;
export const DEFAULT_MESSAGE_STEP_MS = 300;

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

export function checkOptions(o: SandboxOptions): void {
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
