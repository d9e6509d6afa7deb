// Writing a bulk send journal (its format: format.ts). Each record is one write(2) on a file opened
// for appending, made before the call returns; fsync runs on the thread pool.

import { closeSync, fsync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { jsonString, jsonStrings } from '../../output/json-text.js';
import { JOURNAL_VERSION, sealRecord, sealText, type JournalBudgetStop, type JournalExclude, type JournalOwnCounts, type JournalRecord, type JournalRun, type UnknownChoice } from './format.js';
import type { JournalState } from './replay.js';

export interface JournalWriterOptions {
  /** Start an fsync after this many results (0: only on close). Default 100. */
  fsyncEvery?: number;
  /**
   * And no sooner than this long after the last one started (default 0: no floor); the
   * results written meanwhile are synced when it has passed. A fast bulk send on a real disk
   * otherwise runs hundreds of fsyncs a second, and its appends wait behind them.
   */
  fsyncIntervalMs?: number;
  /** Source of `at` when the record has none. */
  clock?: () => Date;
  /**
   * Write results at the end of the event-loop turn they arrive in, together (see `defer`),
   * instead of one write each. Default false: each result is in the file when `result` returns.
   */
  batchResults?: boolean;
}

export class JournalWriter {
  readonly path: string;
  private fd: number | null;
  private readonly fsyncEvery: number;
  private readonly fsyncIntervalMs: number;
  private lastSyncStart = -Infinity;
  private syncTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly clock: () => Date;
  private readonly customClock: boolean;
  private nextSeq: number;
  private sinceSync = 0;
  /** The fsync running on the thread pool, if any: at most one at a time. */
  private syncing: Promise<void> | null = null;
  private syncError: unknown = null;

  private constructor(path: string, fd: number, nextSeq: number, options: JournalWriterOptions) {
    this.path = path;
    this.fd = fd;
    this.nextSeq = nextSeq;
    this.fsyncEvery = options.fsyncEvery ?? 100;
    this.fsyncIntervalMs = options.fsyncIntervalMs ?? 0;
    this.batchResults = options.batchResults ?? false;
    this.clock = options.clock ?? (() => new Date());
    this.customClock = options.clock !== undefined;
  }

  /**
   * Starts a journal for a new run: the file must be absent or empty (or hold only a torn header,
   * which means that run launched nothing). Created with mode 0600: it lists phone numbers.
   */
  static create(
    path: string,
    run: JournalRun,
    options: JournalWriterOptions & { svc?: string; shard?: { k: number; n: number } | undefined; own?: JournalOwnCounts | undefined; exclude?: JournalExclude | undefined; toFile?: string | undefined } = {},
  ): JournalWriter {
    const fd = openSync(path, 'a', 0o600);
    try {
      if (fstatSync(fd).size > 0) ftruncateSync(fd, 0);
      const clock = options.clock ?? (() => new Date());
      const header = {
        journal: 'svc-send',
        version: JOURNAL_VERSION,
        run,
        created: clock().toISOString(),
        svc: options.svc ?? '',
        ...(options.shard !== undefined ? { shard: { k: options.shard.k, n: options.shard.n } } : {}),
        ...(options.own !== undefined ? { own: ownRecord(options.own) } : {}),
        ...(options.exclude !== undefined ? { exclude: { digest: options.exclude.digest, numbers: options.exclude.numbers } } : {}),
        ...(options.toFile !== undefined ? { toFile: options.toFile } : {}),
      };
      writeFully(fd, Buffer.from(sealRecord(header)));
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    return new JournalWriter(path, fd, 1, options);
  }

  /**
   * Continues a journal read by `readJournal`: a torn last line is cut off (its bytes kept, in
   * Base64, in the `resume` record), then a `resume` record marks the new session.
   */
  static resume(
    state: JournalState,
    unknown: UnknownChoice | 'none',
    options: JournalWriterOptions & { exclude?: JournalExclude | undefined; own?: JournalOwnCounts | undefined; optedOutSince?: readonly string[] | undefined } = {},
  ): JournalWriter {
    const fd = openSync(state.path, 'a', 0o600);
    try {
      const writer = new JournalWriter(state.path, fd, state.lastSeq + 1, options);
      if (fstatSync(fd).size !== state.validBytes) ftruncateSync(fd, state.validBytes);
      const torn = state.torn === undefined ? {} : { torn: { line: state.torn.line, bytes: state.torn.bytes.toString('base64') } };
      const grown = options.exclude === undefined ? {} : { exclude: { digest: options.exclude.digest, numbers: options.exclude.numbers } };
      const own = options.own === undefined ? {} : { own: ownRecord(options.own) };
      const optedOutSince = options.optedOutSince === undefined || options.optedOutSince.length === 0 ? {} : { optedOutSince: options.optedOutSince };
      writer.write(sealRecord({ type: 'resume', at: writer.clock().toISOString(), unknown, ...torn, ...grown, ...own, ...optedOutSince }));
      return writer;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /**
   * Records requests as in flight, all in one write: on return they are in the file, so the
   * requests may leave. Returns each request's sequence number, for its result.
   */
  launch(requests: readonly { readonly to: readonly string[] }[]): number[] {
    const seqs: number[] = [];
    let text = '';
    for (const request of requests) {
      const seq = this.nextSeq++;
      seqs.push(seq);
      text += sealText(`{"type":"launch","seq":${seq},"to":${jsonStrings(request.to)}}`);
    }
    // Launch records do not count toward `fsyncEvery`: it counts answers, one fsync per that many requests.
    if (text !== '') this.write(text, 0);
    return seqs;
  }

  /** Records the answer to the request launched as `seq`. */
  result(seq: number, record: JournalRecord): void {
    // Built by hand (the same text JSON.stringify makes of the record): one a request.
    const { to, outcome, messageId, messageIds, status, error } = record;
    let text = `{"type":"result","seq":${seq},"to":${jsonStrings(to)},"outcome":"${outcome}"`;
    if (messageId !== undefined) text += `,"messageId":${jsonString(messageId)}`;
    if (messageIds !== undefined) text += `,"messageIds":${JSON.stringify(messageIds)}`;
    if (status !== undefined) text += `,"status":${jsonString(status)}`;
    if (error !== undefined) text += `,"error":${JSON.stringify(error)}`;
    // The clock's ISO 8601 text needs no escaping.
    text += record.at !== undefined ? `,"at":${JSON.stringify(record.at)}}` : `,"at":"${this.now()}"}`;
    this.defer(sealText(text));
  }

  private lastMs = -1;
  private lastIso = '';

  /** The time as ISO 8601; formatted once a millisecond (toISOString costs microseconds, a send makes thousands). */
  private now(): string {
    if (this.customClock) return this.clock().toISOString();
    const ms = Date.now();
    if (ms !== this.lastMs) {
      this.lastMs = ms;
      this.lastIso = new Date(ms).toISOString();
    }
    return this.lastIso;
  }

  /** The request launched as `seq` was throttled: refused unprocessed, to be launched again. */
  throttled(seq: number, record: JournalRecord): void {
    const status = record.error?.status ?? null;
    this.defer(sealRecord({ type: 'throttled', seq, to: record.to, status, at: record.at ?? this.clock().toISOString() }));
  }

  /** --budget stopped the run: nothing more is launched (see the `stop` record in format.ts). */
  stop(details: Omit<JournalBudgetStop, 'at'>): void {
    const { reason, budget, spent, next, to, currency } = details;
    this.write(sealRecord({ type: 'stop', reason, budget, spent, next, to, ...(currency !== undefined ? { currency } : {}), at: this.clock().toISOString() }));
  }

  /** The run pauses for its send window until `until`; nothing is in flight across it. */
  pause(reason: string, details: { window: string; until: Date }): void {
    this.write(sealRecord({ type: 'pause', reason, window: details.window, until: details.until.toISOString(), at: this.clock().toISOString() }));
  }

  /**
   * Answers arrive many to an event-loop turn: their records are gathered and written together
   * at the end of the turn (or sooner, ahead of the next launch records, in the same write), one
   * write(2) for all of them instead of one each: that was a sixth of a bulk send's CPU time.
   * A death in between loses at most the answers of that turn, whose launches then read as in
   * flight (unknown): never an acceptance that was not one.
   */
  private defer(text: string): void {
    if (!this.batchResults) {
      this.write(text);
      return;
    }
    if (this.fd === null) throw new Error(`journal ${this.path} is closed`);
    if (this.syncError !== null) throw this.syncError;
    this.pending += text;
    this.pendingLines++;
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => {
        this.flushScheduled = false;
        if (this.pending === '' || this.fd === null) return;
        try {
          this.write('', 0);
        } catch (error) {
          this.syncError ??= error;
        }
      });
    }
  }

  private readonly batchResults: boolean;
  private pending = '';
  private pendingLines = 0;
  private flushScheduled = false;

  private write(text: string, lines = 1): void {
    if (this.fd === null) throw new Error(`journal ${this.path} is closed`);
    if (this.syncError !== null) throw this.syncError;
    if (this.pending !== '') {
      text = this.pending + text;
      lines += this.pendingLines;
      this.pending = '';
      this.pendingLines = 0;
    }
    if (text === '') return;
    writeText(this.fd, text);
    this.sinceSync += lines;
    if (this.fsyncEvery > 0 && this.sinceSync >= this.fsyncEvery && this.syncing === null) this.startSync();
  }

  /** Starts the periodic fsync now, or once the interval since the last one has passed. */
  private startSync(): void {
    const wait = this.lastSyncStart + this.fsyncIntervalMs - performance.now();
    if (wait > 0) {
      this.syncTimer ??= setTimeout(() => {
        this.syncTimer = undefined;
        if (this.fd !== null && this.sinceSync > 0 && this.syncing === null) this.startSync();
      }, Math.ceil(wait)).unref();
      return;
    }
    this.lastSyncStart = performance.now();
    this.sinceSync = 0;
    this.syncing = this.fsyncNow().finally(() => {
      this.syncing = null;
    });
  }

  /** Resolves when every line written so far is on the disk. */
  async sync(): Promise<void> {
    if (this.fd !== null && this.pending !== '') this.write('', 0);
    while (this.syncing !== null) await this.syncing;
    if (this.fd !== null) {
      this.sinceSync = 0;
      this.syncing = this.fsyncNow().finally(() => {
        this.syncing = null;
      });
      await this.syncing;
    }
    if (this.syncError !== null) throw this.syncError;
  }

  /** Waits for the disk, then closes. Further records throw. */
  async close(): Promise<void> {
    if (this.fd !== null && this.pending !== '') {
      try {
        this.write('', 0);
      } catch (error) {
        this.syncError ??= error;
      }
    }
    while (this.syncing !== null) await this.syncing;
    clearTimeout(this.syncTimer);
    this.syncTimer = undefined;
    if (this.fd === null) return;
    const fd = this.fd;
    this.fd = null;
    try {
      await fsyncAsync(fd);
    } finally {
      closeSync(fd);
    }
    if (this.syncError !== null) throw this.syncError;
  }

  private async fsyncNow(): Promise<void> {
    if (this.fd === null) return;
    try {
      await fsyncAsync(this.fd);
    } catch (error) {
      this.syncError ??= error;
    }
  }
}

function fsyncAsync(fd: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
}

function writeFully(fd: number, bytes: Buffer): void {
  let offset = 0;
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
}

/** One write call in the usual case; the rest of a short write follows. */
function writeText(fd: number, text: string): void {
  const written = writeSync(fd, text);
  if (written < Buffer.byteLength(text)) writeFully(fd, Buffer.from(text).subarray(written));
}

/** The `own` counts as written: the opted-out and zone-unknown counts only when there are any. */
function ownRecord(own: JournalOwnCounts): JournalOwnCounts {
  return {
    recipients: own.recipients,
    excluded: own.excluded,
    ...(own.optedOut !== undefined && own.optedOut > 0 ? { optedOut: own.optedOut } : {}),
    ...(own.zoneUnknown !== undefined && own.zoneUnknown > 0 ? { zoneUnknown: own.zoneUnknown } : {}),
  };
}
