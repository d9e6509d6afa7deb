// The change log of `--state FILE`: FILE.<generation>.log holds one JSON line per changed record
// (a whole record: replaying is an upsert) and per queued webhook event. A torn last line (a crash
// during a write that was therefore never answered) is dropped.

import { readFile, readdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { MediaRecord, SandboxStore, SerializedState, StoreChange } from './records.js';
import { readStateFile } from './snapshot.js';
import type { WebhookDispatcherState } from '../webhooks/types.js';

export function logName(file: string, generation: number): string {
  return `${file}.${generation}.log`;
}

export interface SavedState {
  snapshot: SerializedState | null;
  /** Change lines of every log that continues the snapshot, in order. */
  lines: LogLine[];
  /** The highest generation seen (snapshot or log). */
  generation: number;
  /** Log files found (to remove once a new snapshot holds them). */
  logFiles: string[];
}

export type LogLine =
  | { k: 'tenant' | 'number' | 'order' | 'message' | 'media'; v: Record<string, unknown> }
  | { k: 'meta'; v: { nextOrderId: number } }
  | { k: 'event'; v: Record<string, unknown> }
  | { k: 'dispatcher'; v: WebhookDispatcherState };

/** The snapshot and the change logs that continue it. */
export async function readSavedState(file: string): Promise<SavedState> {
  const snapshot = await readStateFile(file);
  const base = snapshot?.logGeneration ?? 0;
  const prefix = `${basename(file)}.`;
  let names: string[] = [];
  try {
    names = await readdir(dirname(file));
  } catch {
    names = [];
  }
  const logs = names
    .map((name) => {
      if (!name.startsWith(prefix) || !name.endsWith('.log')) return undefined;
      const middle = name.slice(prefix.length, -'.log'.length);
      return /^\d{1,9}$/.test(middle) ? { name, generation: Number(middle) } : undefined;
    })
    .filter((l): l is { name: string; generation: number } => l !== undefined)
    .sort((a, b) => a.generation - b.generation);
  const lines: LogLine[] = [];
  let generation = base;
  for (const log of logs) {
    generation = Math.max(generation, log.generation);
    if (log.generation < base) continue;
    const path = join(dirname(file), log.name);
    const text = await readFile(path, 'utf8');
    const rows = text.split('\n');
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as string;
      if (row === '') continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(row);
      } catch {
        // The last line of the last log may be torn by a crash: its write was never answered.
        const last = log === logs[logs.length - 1] && rows.slice(i + 1).every((r) => r === '');
        if (last) break;
        throw new Error(`state log ${path} line ${i + 1} is damaged; move the state files away or pass another --state`);
      }
      if (!isLogLine(parsed)) throw new Error(`state log ${path} line ${i + 1} is not a sandbox change record`);
      lines.push(parsed);
    }
  }
  return { snapshot, lines, generation, logFiles: logs.map((l) => join(dirname(file), l.name)) };
}

function isLogLine(value: unknown): value is LogLine {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v['k'] === 'string' && typeof v['v'] === 'object' && v['v'] !== null;
}

/** Applies the change lines to the store; returns the dispatcher state they leave. */
export function replayLog(store: SandboxStore, base: WebhookDispatcherState | null, lines: readonly LogLine[]): WebhookDispatcherState | null {
  let dispatcher = base;
  // Ids of the pending events, so that an event line already in a dispatcher state is kept once.
  let pendingIds: Set<unknown> | undefined;
  const idsOf = (state: WebhookDispatcherState): Set<unknown> =>
    new Set(state.pending.map((p) => (typeof p === 'object' && p !== null ? (p as Record<string, unknown>)['deliveryId'] : undefined)));
  for (const line of lines) {
    switch (line.k) {
      case 'tenant':
        store.tenants.set(String(line.v['tenantId']), line.v as never);
        break;
      case 'number':
        store.putNumber(line.v as never);
        break;
      case 'order':
        store.orders.set(Number(line.v['orderId']), line.v as never);
        break;
      case 'message':
        store.putMessage(line.v as never);
        break;
      case 'media': {
        const m = line.v as unknown as Omit<MediaRecord, 'bytes'> & { bytes: string };
        store.media.set(m.mediaId, { ...m, bytes: Buffer.from(m.bytes, 'base64') });
        break;
      }
      case 'meta':
        store.nextOrderId = Math.max(store.nextOrderId, Number(line.v.nextOrderId));
        break;
      case 'dispatcher':
        dispatcher = { ...line.v, pending: [...(Array.isArray(line.v.pending) ? line.v.pending : [])] };
        pendingIds = undefined;
        break;
      case 'event': {
        dispatcher ??= { pending: [], failed: [], attempts: [] };
        if (!Array.isArray(dispatcher.pending)) dispatcher = { ...dispatcher, pending: [] };
        pendingIds ??= idsOf(dispatcher);
        const id = line.v['deliveryId'];
        if (!pendingIds.has(id)) {
          pendingIds.add(id);
          dispatcher.pending.push(line.v);
        }
        break;
      }
      default:
        break;
    }
  }
  return dispatcher;
}

export function mediaJson(m: MediaRecord): Record<string, unknown> {
  return { ...m, bytes: m.bytes.toString('base64') };
}

export function changeKey(change: StoreChange): string {
  switch (change.kind) {
    case 'tenant':
      return `t${change.value.tenantId}`;
    case 'number':
      return `n${change.value.phoneNumber}`;
    case 'order':
      return `o${change.value.orderId}`;
    case 'message':
      return `m${change.value.messageId}`;
    case 'media':
      return `f${change.value.mediaId}`;
    case 'meta':
      return 'meta';
  }
}
