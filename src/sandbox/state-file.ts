// `--state FILE`: a snapshot plus an append-only change log, so that an answered write survives
// `kill -9` at a cost that does not grow with the state.
//
// - FILE is a snapshot: the whole sandbox as one JSON document (the format of earlier versions,
//   which still load), written atomically (temporary file, fsync, rename, directory fsync).
//   Its `logGeneration` names the change log that continues it.
// - FILE.<generation>.log holds one JSON line per changed record (a whole record: replaying is an
//   upsert) and per queued webhook event. Changes are written in groups: every write request waits
//   for the group that holds its change to be written and fdatasync'd, then answers. One fsync
//   serves every request that arrived meanwhile (group commit).
// - When the log grows past the snapshot's size (at least 16 MB), a new generation starts and the
//   snapshot is rewritten in slices across event-loop turns, so that no request waits for the
//   whole state to be serialized. A crash at any point leaves a snapshot and the logs that
//   continue it; starting compacts them into a fresh snapshot.
// - A torn last line (a crash during a write that was therefore never answered) is dropped.

import { open, readFile, readdir, rename, unlink, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  isSerializedState,
  STATE_VERSION,
  type MediaRecord,
  type SandboxStore,
  type SerializedState,
  type StoreChange,
} from './state.js';
import type { EngineJournal } from './engine.js';
import type { WebhookDispatcher, WebhookDispatcherState, WebhookEventKind, WebhookTarget } from './webhooks/types.js';

/** Compaction starts when the log is larger than this and than the last snapshot. */
export const MIN_COMPACT_BYTES = 16 * 1024 * 1024;
/** How long a background change (a message step, a webhook attempt) may wait for its group. */
const BACKGROUND_FLUSH_MS = 50;
/** The dispatcher's own bookkeeping (attempts, retries) is saved at most this often. */
const DISPATCHER_SAVE_MS = 1000;
/** Records serialized per event-loop turn while compacting. */
const SLICE = 500;

function tempPrefix(file: string): string {
  return `.${basename(file)}.tmp-`;
}

function logName(file: string, generation: number): string {
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

type LogLine =
  | { k: 'tenant' | 'number' | 'order' | 'message' | 'media'; v: Record<string, unknown> }
  | { k: 'meta'; v: { nextOrderId: number } }
  | { k: 'event'; v: Record<string, unknown> }
  | { k: 'dispatcher'; v: WebhookDispatcherState };

/** Reads the state file; null when it does not exist. A file that is not our JSON is an error. */
export async function readStateFile(file: string): Promise<SerializedState | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`state file ${file} is not valid JSON; move it away or pass another --state`);
  }
  if (!isSerializedState(parsed)) {
    throw new Error(`state file ${file} is not a sandbox state; move it away or pass another --state`);
  }
  return parsed;
}

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

/** Writes `text` (or the pieces `write` produces) to `file` atomically, mode 0600. */
export async function writeFileAtomic(file: string, text: string | ((handle: FileHandle) => Promise<void>)): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `${tempPrefix(file)}${process.pid}-${randomBytes(4).toString('hex')}`);
  const handle = await open(temp, 'w', 0o600);
  try {
    if (typeof text === 'string') await handle.writeFile(text, 'utf8');
    else await text(handle);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(dir);
}

async function syncDirectory(dir: string): Promise<void> {
  // A rename or a new file is durable only once the directory is synced; not every platform allows it.
  try {
    const dirHandle = await open(dir, 'r');
    try {
      await dirHandle.sync();
    } finally {
      await dirHandle.close();
    }
  } catch {
    /* best effort */
  }
}

/** Removes temporary files a crashed writer left behind; they never hold the state. */
export async function removeStaleTempFiles(file: string): Promise<void> {
  const prefix = tempPrefix(file);
  let names: string[];
  try {
    names = await readdir(dirname(file));
  } catch {
    return;
  }
  await Promise.all(
    names.filter((n) => n.startsWith(prefix)).map((n) => unlink(join(dirname(file), n)).catch(() => {})),
  );
}

function mediaJson(m: MediaRecord): Record<string, unknown> {
  return { ...m, bytes: m.bytes.toString('base64') };
}

function changeKey(change: StoreChange): string {
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

/**
 * The journal of a sandbox with `--state`: the engine reports changes, write requests wait on
 * persisted(), close() leaves a complete snapshot and no log.
 */
export class DurableState implements EngineJournal {
  private handle: FileHandle | undefined;
  private generation: number;
  private logBytes = 0;
  private snapshotBytes: number;
  private readonly dirty = new Map<string, StoreChange>();
  private events: string[] = [];
  private dispatcherDue = false;
  private dispatcherUrgent = false;
  private dispatcherTimer: NodeJS.Timeout | undefined;
  private waiters: Array<{ resolve: () => void; reject: (error: unknown) => void }> = [];
  private flushing: Promise<void> | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private timer: NodeJS.Timeout | undefined;
  private compacting: Promise<void> | undefined;
  private closed = false;

  private constructor(
    private readonly file: string,
    private readonly store: SandboxStore,
    private readonly dispatcher: WebhookDispatcher,
    private readonly onError: (error: unknown) => void,
    generation: number,
    snapshotBytes: number,
    private readonly compactBytes: number,
    /** The sandbox's clock, the dispatcher's too: a logged event is due at its time of dispatch. */
    private readonly now: () => number,
  ) {
    this.generation = generation;
    this.snapshotBytes = snapshotBytes;
  }

  /**
   * Loads FILE and its logs into `store` and `dispatcher`, writes them as one fresh snapshot
   * (so that an old single-file state and any torn log are settled), and opens a new log.
   */
  static async open(
    file: string,
    store: SandboxStore,
    dispatcher: WebhookDispatcher,
    onError: (error: unknown) => void,
    options: { compactBytes?: number; retention?: number; now?: () => number } = {},
  ): Promise<{ state: DurableState; existed: boolean }> {
    await removeStaleTempFiles(file);
    const saved = await readSavedState(file);
    const existed = saved.snapshot !== null || saved.lines.length > 0;
    if (saved.snapshot) store.load(saved.snapshot);
    const dispatcherState = replayLog(store, saved.snapshot?.dispatcher ?? null, saved.lines);
    if (options.retention !== undefined) store.trimMessages(options.retention);
    if (dispatcherState) dispatcher.restore(dispatcherState);
    const state = new DurableState(file, store, dispatcher, onError, saved.generation + 1, 0, options.compactBytes ?? MIN_COMPACT_BYTES, options.now ?? Date.now);
    await state.writeSnapshot(state.generation);
    for (const log of saved.logFiles) await unlink(log).catch(() => {});
    state.handle = await open(logName(file, state.generation), 'a', 0o600);
    await syncDirectory(dirname(file));
    return { state, existed };
  }

  changed(change: StoreChange): void {
    if (this.closed) return;
    this.dirty.set(changeKey(change), change);
    this.soon();
  }

  dispatched(deliveryId: string, event: WebhookEventKind, target: WebhookTarget, payload: unknown): void {
    if (this.closed) return;
    const pending = {
      deliveryId,
      event,
      target,
      body: JSON.stringify(payload) ?? 'null',
      attempts: 0,
      firstAttemptAtMs: null,
      lastAttemptAtMs: null,
      nextAttemptAtMs: this.now(),
      lastStatus: null,
      lastError: null,
    };
    this.events.push(JSON.stringify({ k: 'event', v: pending }));
    this.soon();
  }

  /** The dispatcher's state changed: saved within a second, or with the next group when `urgent`. */
  dispatcherChanged(urgent = false): void {
    if (this.closed) return;
    this.dispatcherDue = true;
    if (urgent) {
      this.dispatcherUrgent = true;
      this.soon();
    } else if (!this.dispatcherTimer) {
      this.dispatcherTimer = setTimeout(() => {
        this.dispatcherTimer = undefined;
        this.dispatcherUrgent = true;
        this.soon();
      }, DISPATCHER_SAVE_MS);
      this.dispatcherTimer.unref();
    }
  }

  persisted(): Promise<void> {
    if (this.closed && !this.flushing) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.kick();
    });
  }

  /** Writes what is pending, then the whole state as a fresh snapshot, and removes the log. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.timer);
    clearTimeout(this.dispatcherTimer);
    if (this.immediate) clearImmediate(this.immediate);
    this.dispatcherDue = true;
    this.dispatcherUrgent = true;
    await this.drain();
    if (this.compacting) await this.compacting.catch(() => {});
    const old = this.generation;
    try {
      await this.writeSnapshot(old + 1);
      await this.handle?.close();
      this.handle = undefined;
      await unlink(logName(this.file, old)).catch(() => {});
    } catch (error) {
      // The log still holds everything: the next start replays it.
      this.onError(error);
      await this.handle?.close().catch(() => {});
      this.handle = undefined;
    }
  }

  // ---- group commit ----

  private hasWork(): boolean {
    return this.dirty.size > 0 || this.events.length > 0 || (this.dispatcherDue && this.dispatcherUrgent);
  }

  /** A background change: written within BACKGROUND_FLUSH_MS unless a request flushes sooner. */
  private soon(): void {
    if (this.timer || this.flushing || this.immediate) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, BACKGROUND_FLUSH_MS);
  }

  /** Starts a group at the end of this event-loop turn, or after the one being written. */
  private kick(): void {
    if (this.flushing || this.immediate) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      clearTimeout(this.timer);
      this.timer = undefined;
      this.flushing = this.flush().finally(() => {
        this.flushing = undefined;
        if (this.waiters.length > 0 || (this.hasWork() && this.closed)) this.kick();
        else if (this.hasWork()) this.soon();
      });
    });
  }

  private async drain(): Promise<void> {
    while (this.flushing || this.immediate || this.hasWork()) {
      if (this.flushing) await this.flushing;
      else {
        if (this.immediate) {
          clearImmediate(this.immediate);
          this.immediate = undefined;
        }
        this.flushing = this.flush().finally(() => {
          this.flushing = undefined;
        });
        await this.flushing;
      }
    }
  }

  private render(): string {
    let text = '';
    for (const change of this.dirty.values()) {
      if (change.kind === 'meta') text += `${JSON.stringify({ k: 'meta', v: { nextOrderId: this.store.nextOrderId } })}\n`;
      else if (change.kind === 'media') text += `${JSON.stringify({ k: 'media', v: mediaJson(change.value) })}\n`;
      else text += `{"k":"${change.kind}","v":${JSON.stringify(change.value)}}\n`;
    }
    this.dirty.clear();
    if (this.events.length > 0) {
      text += `${this.events.join('\n')}\n`;
      this.events = [];
    }
    if (this.dispatcherDue && this.dispatcherUrgent) {
      this.dispatcherDue = false;
      this.dispatcherUrgent = false;
      text += `${JSON.stringify({ k: 'dispatcher', v: this.dispatcher.snapshot() })}\n`;
    }
    return text;
  }

  private async flush(): Promise<void> {
    const waiters = this.waiters;
    this.waiters = [];
    try {
      const text = this.render();
      const handle = this.handle;
      if (text !== '' && handle) {
        const bytes = Buffer.from(text, 'utf8');
        await handle.write(bytes, 0, bytes.length);
        await handle.datasync();
        this.logBytes += bytes.length;
      }
      for (const w of waiters) w.resolve();
    } catch (error) {
      this.onError(error);
      for (const w of waiters) w.reject(error);
    }
    if (!this.closed && !this.compacting && this.logBytes > Math.max(this.compactBytes, this.snapshotBytes)) {
      this.compacting = this.compact()
        .catch((error: unknown) => this.onError(error))
        .finally(() => {
          this.compacting = undefined;
        });
    }
  }

  // ---- compaction ----

  /** Starts a new log, then writes the snapshot it continues; the old log goes once that is durable. */
  private async compact(): Promise<void> {
    const old = this.generation;
    const next = old + 1;
    const handle = await open(logName(this.file, next), 'a', 0o600);
    const previous = this.handle;
    this.handle = handle;
    this.generation = next;
    this.logBytes = 0;
    // The dispatcher's state goes into the snapshot; what changes after is in the new log.
    await this.writeSnapshot(next);
    // A group that began before the switch may still be writing to the old log.
    if (this.flushing) await this.flushing;
    await previous?.close();
    await unlink(logName(this.file, old)).catch(() => {});
  }

  /** Writes the whole state as FILE, continued by log `generation`, a slice per event-loop turn. */
  private async writeSnapshot(generation: number): Promise<void> {
    const store = this.store;
    const dispatcherState = this.dispatcher.snapshot();
    let bytes = 0;
    await writeFileAtomic(this.file, async (handle) => {
      const put = async (text: string): Promise<void> => {
        const buf = Buffer.from(text, 'utf8');
        bytes += buf.length;
        await handle.write(buf, 0, buf.length);
      };
      const list = async <T>(name: string, values: Iterable<T>, map: (v: T) => unknown, last = false): Promise<void> => {
        await put(`"${name}":[`);
        let first = true;
        let piece: string[] = [];
        for (const value of values) {
          piece.push(JSON.stringify(map(value)));
          if (piece.length >= SLICE) {
            await put(`${first ? '' : ','}${piece.join(',')}`);
            first = false;
            piece = [];
          }
        }
        if (piece.length > 0) await put(`${first ? '' : ','}${piece.join(',')}`);
        await put(`]${last ? '' : ','}`);
      };
      await put(
        `{"version":${STATE_VERSION},"logGeneration":${generation},"mediaSigningKey":${JSON.stringify(store.mediaSigningKey.toString('base64'))},"nextOrderId":${store.nextOrderId},`,
      );
      await list('tenants', store.tenants.values(), (t) => t);
      await list('numbers', store.numbers.values(), (n) => n);
      await list('orders', store.orders.values(), (o) => o);
      await list('messages', store.messages.values(), (m) => m);
      await list('media', store.media.values(), mediaJson);
      await put(`"dispatcher":${JSON.stringify(dispatcherState)}}`);
    });
    this.snapshotBytes = bytes;
  }
}
