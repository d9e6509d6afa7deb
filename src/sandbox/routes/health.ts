// GET /health in the shape docs/decisions.md#lists picks: status, a .NET-style time span, and entries.

import type { ApiCall } from '../call.js';
import { sendJson } from '../http-io.js';

/** Milliseconds as a .NET TimeSpan string, 00:00:00.0012345. */
export function timeSpan(ms: number): string {
  const totalTicks = Math.max(0, Math.round(ms * 10_000));
  const ticks = totalTicks % 10_000_000;
  const totalSeconds = Math.floor(totalTicks / 10_000_000);
  const pad = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${pad(Math.floor(totalSeconds / 3600))}:${pad(Math.floor(totalSeconds / 60) % 60)}:${pad(totalSeconds % 60)}.${pad(ticks, 7)}`;
}

export function health(call: ApiCall, schedulerPending: () => number): void {
  const started = performance.now();
  const entries: { name: string; status: string; duration: string; data?: Record<string, number> }[] = [];
  const check = (name: string, data: () => Record<string, number>): void => {
    const t0 = performance.now();
    const values = data();
    entries.push({ name, status: 'Healthy', duration: timeSpan(performance.now() - t0), data: values });
  };
  const store = call.engine.store;
  check('store', () => ({ tenants: store.tenants.size, numbers: store.numbers.size, messages: store.messages.size }));
  check('scheduler', () => ({ pending: schedulerPending() }));
  check('webhooks', () => ({ failed: call.engine.dispatcher.failed().length }));
  sendJson(call.res, 200, { status: 'Healthy', totalDuration: timeSpan(performance.now() - started), entries });
}
