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

import { open, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { changeKey, logName, mediaJson, readSavedState, replayLog } from './change-log.js';
import { STATE_VERSION, type SandboxStore, type StoreChange } from './records.js';
import { removeStaleTempFiles } from './snapshot.js';
import { syncDirectory, writeAll, writeFileAtomic } from '../../domain/files/atomic-write.js';
import { lockFileSync, type FileLock } from '../../domain/files/lock.js';
import type { EngineJournal } from '../engine.js';
import type { WebhookDispatcher, WebhookEventKind, WebhookTarget } from '../webhooks/types.js';

/** Compaction starts when the log is larger than this and than the last snapshot. */
export const MIN_COMPACT_BYTES = 16 * 1024 * 1024;
/** How long a background change (a message step, a webhook attempt) may wait for its group. */
const BACKGROUND_FLUSH_MS = 50;
/** The dispatcher's own bookkeeping (attempts, retries) is saved at most this often. */
const DISPATCHER_SAVE_MS = 1000;
/** Records serialized per event-loop turn while compacting. */
const SLICE = 500;

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
  private lock: FileLock | undefined;

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
    // Held while this sandbox runs: a second one on the same file would answer writes that the
    // first one's next snapshot erases. Throws LockHeldError naming the holder.
    const lock = lockFileSync(file, { command: 'svc sandbox start' });
    try {
      const opened = await DurableState.load(file, store, dispatcher, onError, options);
      opened.state.lock = lock;
      return opened;
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  private static async load(
    file: string,
    store: SandboxStore,
    dispatcher: WebhookDispatcher,
    onError: (error: unknown) => void,
    options: { compactBytes?: number; retention?: number; now?: () => number },
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
    } finally {
      this.lock?.release();
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
        // Every byte, or an error: a short write taken for a whole one would answer a change as saved.
        await writeAll(handle, bytes);
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
    await writeFileAtomic(this.file, async (write) => {
      const put = async (text: string): Promise<void> => {
        const buf = Buffer.from(text, 'utf8');
        bytes += buf.length;
        await write(buf);
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
