// The bulk send journal (`svc send --journal FILE`, decisions.md "CLI behaviour"): a write-ahead
// log that proves itself. Format 2, JSON Lines (UTF-8, one record a line, LF):
//
//   line 1   {"journal":"svc-send","version":2,"run":{...},"created":"ISO","svc":"x.y.z","crc":"…"}
//   launch   {"type":"launch","seq":N,"to":["+1…"],"crc":"…"}                      before the request leaves
//   result   {"type":"result","seq":N,"to":[…],"outcome":"accepted|rejected|unknown",
//             "messageId"?,"messageIds"?,"status"?,"error"?:{message,status,title?,errorCode?},"at":"ISO","crc":"…"}
//             `messageId` is the answer's (its first recipient's); `messageIds`, for a request to
//             several recipients, is each one's id from the answer's `messages`, in the order of
//             `to` (null for one it did not name). Journals without it still read: the first only.
//   resume   {"type":"resume","at":"ISO","unknown":"resend|skip|none","torn"?:{"line":N,"bytes":"base64"},
//             "exclude"?:{"digest","numbers"},"own"?:{"recipients","excluded"},"crc":"…"}
//             `exclude` and `own` when the resumed run's --exclude-file has grown (numbers added
//             since): from then on they stand for the header's, so that the journal itself says
//             which list a later --resume must keep to, whatever happens to its JOURNAL.exclude.
//   throttled {"type":"throttled","seq":N,"to":[…],"status":429|503,"at":"ISO","crc":"…"}    the request
//             was refused unprocessed (issue 10): its launch is closed, no outcome; sent again later
//   pause    {"type":"pause","reason":"window","window":"…","until":"ISO","at":"ISO","crc":"…"}
//             the run waits for its send window (--window); nothing of it is in flight
// The header has `"shard":{"k":K,"n":N}` when the run was started with --shard K/N.
//
// `crc` is the CRC-32 (8 lowercase hex digits) of the record's text without its `crc` member
// (the line up to `,"crc":"`, then `}`). The header's `run` binds the journal to one send: the
// from-number, SHA-256 digests of the body (or template) and of the recipients, and the media, so
// that `--resume` with another run's journal is refused. `seq` grows through the whole file; a
// result names the launch it answers. A launch without a result means the request was in flight
// when the process died: its recipients' outcome is unknown.
//
// Durability: each record is written with one write(2) on a file opened for appending before the
// call returns, so a request never leaves unrecorded whatever kills the process. With
// `batchResults` (a bulk send), results are gathered for the rest of the event-loop turn they
// arrive in and written together (ahead of the next launches, or at the end of the turn): a
// SIGKILL can lose only the results of that turn, whose requests then read as in flight
// (unknown), never as accepted when they were not. Only a
// write cut short (a full disk, a power cut) can leave a torn last line, which the reader accepts
// as such (it carries nothing that is not also shown by the launch records before it) and the
// next writer truncates away, keeping its bytes in the `resume` record. fsync runs on the thread
// pool every `fsyncEvery` lines (and, with `fsyncIntervalMs`, no more often than that) and on
// close, bounding what a power cut can lose.
//
// Damage anywhere else (a line whose checksum fails, a record out of order) is refused with its
// line number: a journal that cannot be trusted must not decide who is sent to. Journals of format
// 1 (one JSON line per answer, no header, written by svc before 0.2) are refused with an
// explanation: they cannot show which requests were in flight.

import { closeSync, createReadStream, fsync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { jsonString, jsonStrings } from '../output/json-text.js';
import { PhoneNumberMap } from './phone-number-map.js';

export type JournalOutcome = 'accepted' | 'rejected' | 'unknown';

export const JOURNAL_OUTCOMES: readonly JournalOutcome[] = ['accepted', 'rejected', 'unknown'];

export const JOURNAL_VERSION = 2;

/** What a journal is bound to: another run's journal is refused by `--resume`. */
export interface JournalRun {
  from: string;
  /** `sha256:` and the hex digest of the body (the template with --to-file), as UTF-8. */
  body: string;
  /** `sha256:` and the hex digest of the recipients: the file's bytes, or the --to numbers one a line. */
  recipients: string;
  recipientCount: number;
  /** Each --media link as given, then `sha256:…` of each --media-file's content, in order. */
  media: string[];
}

export interface JournalHeader {
  version: number;
  run: JournalRun;
  created: string;
  svc: string;
  /** --shard K/N of the run (issue 10); `--resume` must give the same. */
  shard?: { k: number; n: number };
  /** This run's own recipients (its shard, less --exclude-file) and those --exclude-file left out; absent in older journals. */
  own?: JournalOwnCounts;
  /** The --exclude-file's set of numbers (digest and size); `--resume` must give the same. Absent without one, and in older journals. */
  exclude?: JournalExclude;
}

export interface JournalExclude {
  digest: string;
  numbers: number;
}

export interface JournalOwnCounts {
  recipients: number;
  excluded: number;
}

export interface JournalError {
  message: string;
  status?: number | null;
  title?: string;
  errorCode?: string;
}

/** The answer to one request, as the engine hands it to the journal. */
export interface JournalRecord {
  to: string[];
  outcome: JournalOutcome;
  messageId?: string;
  /** Each recipient's message id, in the order of `to` (a request to several recipients). */
  messageIds?: (string | null)[];
  status?: string;
  error?: JournalError;
  at?: string;
}

export type UnknownChoice = 'resend' | 'skip';

/** One record of the file, with the line it is on (the header is line 1). */
export type JournalLine =
  | { type: 'header'; line: number; header: JournalHeader }
  | { type: 'launch'; line: number; seq: number; to: string[] }
  | ({ type: 'result'; line: number; seq: number; at: string } & JournalRecord)
  | { type: 'resume'; line: number; at: string; unknown: UnknownChoice | 'none'; torn?: { line: number; bytes: string }; exclude?: JournalExclude; own?: JournalOwnCounts }
  | { type: 'throttled'; line: number; seq: number; to: string[]; status: number | null; at: string }
  | { type: 'pause'; line: number; reason: string; until: string; at: string };

/** A journal that is not one, is damaged, or belongs to an unknown format; names the line when it can. */
export class JournalFormatError extends Error {
  readonly path: string;
  readonly line: number | null;
  constructor(path: string, line: number | null, message: string) {
    super(`${path}${line === null ? '' : `:${line}`}: ${message}`);
    this.name = 'JournalFormatError';
    this.path = path;
    this.line = line;
  }
}

// ---------------------------------------------------------------------------------------------
// Records as text

const CRC_KEY = ',"crc":"';
/** `,"crc":"` + 8 hex digits + `"}`. */
const CRC_SUFFIX_LENGTH = CRC_KEY.length + 8 + 2;
const HEADER_MAGIC = '{"journal":"svc-send"';

/** Two hex digits of each byte value: a checksum is formatted twice a request. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** 8 lowercase hex digits; four table lookups (Number#toString(16) was most of the cost of a checksum). */
function hex8(value: number): string {
  return HEX_BYTES[value >>> 24]! + HEX_BYTES[(value >>> 16) & 0xff]! + HEX_BYTES[(value >>> 8) & 0xff]! + HEX_BYTES[value & 0xff]!;
}

/** The line for a record: its JSON text with the checksum of that text as a last member. */
export function sealRecord(record: object): string {
  return sealText(JSON.stringify(record));
}

/** The line for a record's JSON text (an object, built by hand on the hot path). */
function sealText(text: string): string {
  return `${text.slice(0, -1)}${CRC_KEY}${hex8(crc32(text))}"}\n`;
}

const CLOSE_BRACE = Buffer.from('}');

/** True when the line (without its LF) ends in a checksum that matches the rest. */
function checksumHolds(line: Buffer): boolean {
  const length = line.length;
  if (length < CRC_SUFFIX_LENGTH + 2) return false;
  const keyAt = length - CRC_SUFFIX_LENGTH;
  if (line.toString('latin1', keyAt, keyAt + CRC_KEY.length) !== CRC_KEY) return false;
  if (line[length - 2] !== 0x22 || line[length - 1] !== 0x7d) return false;
  const stated = line.toString('latin1', keyAt + CRC_KEY.length, length - 2);
  if (!/^[0-9a-f]{8}$/.test(stated)) return false;
  const computed = crc32(CLOSE_BRACE, crc32(line.subarray(0, keyAt)));
  return hex8(computed) === stated;
}

// ---------------------------------------------------------------------------------------------
// Writing

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
    options: JournalWriterOptions & { svc?: string; shard?: { k: number; n: number } | undefined; own?: JournalOwnCounts | undefined; exclude?: JournalExclude | undefined } = {},
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
        ...(options.own !== undefined ? { own: { recipients: options.own.recipients, excluded: options.own.excluded } } : {}),
        ...(options.exclude !== undefined ? { exclude: { digest: options.exclude.digest, numbers: options.exclude.numbers } } : {}),
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
    options: JournalWriterOptions & { exclude?: JournalExclude | undefined; own?: JournalOwnCounts | undefined } = {},
  ): JournalWriter {
    const fd = openSync(state.path, 'a', 0o600);
    try {
      const writer = new JournalWriter(state.path, fd, state.lastSeq + 1, options);
      if (fstatSync(fd).size !== state.validBytes) ftruncateSync(fd, state.validBytes);
      const torn = state.torn === undefined ? {} : { torn: { line: state.torn.line, bytes: state.torn.bytes.toString('base64') } };
      const grown = options.exclude === undefined ? {} : { exclude: { digest: options.exclude.digest, numbers: options.exclude.numbers } };
      const own = options.own === undefined ? {} : { own: { recipients: options.own.recipients, excluded: options.own.excluded } };
      writer.write(sealRecord({ type: 'resume', at: writer.clock().toISOString(), unknown, ...torn, ...grown, ...own }));
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

// ---------------------------------------------------------------------------------------------
// Reading

export type RecipientState = 'accepted' | 'rejected' | 'unknown';

export interface JournalCounts {
  /** Distinct recipients accepted by some request. */
  accepted: number;
  /** Distinct recipients never accepted, whose every request was rejected (never sent). */
  rejected: number;
  /** Distinct recipients never accepted with an unknown answer or a request in flight at a crash. */
  unknown: number;
  /** Of `unknown`: recipients of requests launched and never answered in the file. */
  inFlight: number;
}

export interface JournalState {
  path: string;
  /** False when there is no journal yet (absent, empty, or only a torn header). */
  exists: boolean;
  header: JournalHeader | undefined;
  /** Records read, the header included. */
  records: number;
  /** The highest `seq` in the file (0 when none). */
  lastSeq: number;
  /** Bytes of whole records; beyond them only a torn last line. */
  validBytes: number;
  /** A last line cut short (a crash mid-write), if any. */
  torn: { line: number; bytes: Buffer } | undefined;
  counts: JournalCounts;
  /**
   * The exclude list the run keeps to now: the header's, or that of the last `resume` record that
   * grew it. Undefined when the run never had one.
   */
  exclude: JournalExclude | undefined;
  /** The final state of one recipient, or undefined when the journal never names it. */
  stateOf(to: string): RecipientState | undefined;
  /** Every recipient the journal names, with its final state (in no particular order). */
  forEachRecipient(visit: (to: string, state: RecipientState) => void): void;
}

const ACCEPTED = 1;
const REJECTED = 2;
const UNKNOWN = 4;
const IN_FLIGHT = 8;
const OUTCOME_BITS: Readonly<Record<JournalOutcome, number>> = { accepted: ACCEPTED, rejected: REJECTED, unknown: UNKNOWN };

function stateFromBits(bits: number): RecipientState {
  if (bits & ACCEPTED) return 'accepted';
  if (bits & (UNKNOWN | IN_FLIGHT)) return 'unknown';
  return 'rejected';
}

/**
 * Every record of the journal in file order, checked: the header first, checksums, sequence
 * numbers, results that answer a launch. Throws JournalFormatError naming the line at fault.
 * A torn last line is not yielded; `onTorn` is told about it. Streamed: memory does not grow
 * with the file beyond the requests left open.
 */
export async function* readJournalRecords(
  path: string,
  options: { onTorn?: (torn: { line: number; bytes: Buffer; offset: number }) => void } = {},
): AsyncGenerator<JournalLine, void, undefined> {
  const open = new Map<number, string[]>();
  let lastSeq = 0;
  let line = 0;
  let offset = 0;
  let carry: Buffer | undefined;
  const stream = createReadStream(path, { highWaterMark: 256 * 1024 });
  const parse = (bytes: Buffer, lineNumber: number): JournalLine => {
    const record = parseLine(path, bytes, lineNumber);
    if (record.type === 'header') {
      if (lineNumber !== 1) throw new JournalFormatError(path, lineNumber, 'a second journal header: two journals were joined');
      return record;
    }
    if (lineNumber === 1) throw notAJournal(path, bytes);
    if (record.type === 'launch') {
      if (record.seq <= lastSeq) throw new JournalFormatError(path, lineNumber, `launch ${record.seq} is out of order (after ${lastSeq})`);
      lastSeq = record.seq;
      open.set(record.seq, record.to);
    } else if (record.type === 'result' || record.type === 'throttled') {
      const launched = open.get(record.seq);
      if (launched === undefined) throw new JournalFormatError(path, lineNumber, `a result for request ${record.seq}, which was never launched or already answered`);
      if (launched.length !== record.to.length || launched.some((to, i) => record.to[i] !== to)) {
        throw new JournalFormatError(path, lineNumber, `the result for request ${record.seq} names other recipients than its launch`);
      }
      open.delete(record.seq);
    }
    return record;
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      const data = carry === undefined ? chunk : Buffer.concat([carry, chunk]);
      carry = undefined;
      let start = 0;
      let newline = data.indexOf(0x0a, start);
      while (newline !== -1) {
        line++;
        const bytes = data.subarray(start, newline);
        offset += newline + 1 - start;
        yield parse(bytes, line);
        start = newline + 1;
        newline = data.indexOf(0x0a, start);
      }
      if (start < data.length) carry = Buffer.from(data.subarray(start));
    }
  } catch (error) {
    if (error instanceof JournalFormatError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    throw error;
  } finally {
    stream.destroy();
  }
  if (carry !== undefined && carry.length > 0) {
    line++;
    if (line === 1 && !isTornHeader(carry)) {
      // A file without a line break that is not the beginning of a header: not a journal.
      throw notAJournal(path, carry);
    }
    options.onTorn?.({ line, bytes: carry, offset });
  }
}

function isTornHeader(bytes: Buffer): boolean {
  const text = bytes.toString('latin1');
  return text.length <= HEADER_MAGIC.length ? HEADER_MAGIC.startsWith(text) : text.startsWith(HEADER_MAGIC);
}

function notAJournal(path: string, firstLine: Buffer): JournalFormatError {
  const text = firstLine.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value === 'object' && value !== null && Array.isArray(Reflect.get(value, 'to')) && typeof Reflect.get(value, 'outcome') === 'string') {
    return new JournalFormatError(
      path,
      null,
      'a journal of an earlier svc (format 1: one line per answer, no header, no checksums); it cannot show which requests were in flight when that run stopped, so it cannot be resumed safely',
    );
  }
  return new JournalFormatError(path, 1, 'not a journal of svc send (its first line is not a journal header)');
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** One id (or null) per recipient: anything else is ignored, and the record reads as one without. */
function isMessageIds(value: unknown, recipients: number): value is (string | null)[] {
  return Array.isArray(value) && value.length === recipients && value.every((item) => item === null || typeof item === 'string');
}

/**
 * Each recipient's message id from the answer to a request to several recipients: its
 * `messages: [{messageId, to, status}, ...]` (decisions.md), matched by number (an entry without
 * `to` by its position, when there is one entry per recipient). Undefined for one recipient (the
 * answer's `messageId` is its id) and when the answer names no ids per recipient.
 */
export function messageIdsOf(to: readonly string[], answer: Readonly<Record<string, unknown>>): (string | null)[] | undefined {
  if (to.length < 2) return undefined;
  const messages = answer['messages'];
  if (!Array.isArray(messages)) return undefined;
  const digits = (value: string): string => value.replace(/\D/g, '');
  const byNumber = new Map<string, string>();
  const byPosition: (string | null)[] = [];
  for (const entry of messages as unknown[]) {
    const id = member(entry, 'messageId');
    const number = member(entry, 'to');
    const recipient = typeof number === 'string' ? number : Array.isArray(number) && number.length === 1 && typeof number[0] === 'string' ? (number[0] as string) : undefined;
    byPosition.push(typeof id === 'string' && id !== '' && recipient === undefined ? id : null);
    if (typeof id === 'string' && id !== '' && recipient !== undefined && !byNumber.has(digits(recipient))) byNumber.set(digits(recipient), id);
  }
  const positional = messages.length === to.length;
  const ids = to.map((number, position) => byNumber.get(digits(number)) ?? (positional ? byPosition[position]! : null));
  return ids.some((id) => id !== null) ? ids : undefined;
}

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

function parseLine(path: string, bytes: Buffer, line: number): JournalLine {
  if (!checksumHolds(bytes)) {
    if (line === 1) throw notAJournal(path, bytes);
    throw new JournalFormatError(path, line, 'a damaged record (its checksum does not match); the journal cannot be trusted past this point');
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new JournalFormatError(path, line, 'a damaged record (not JSON)');
  }
  const bad = (what: string): JournalFormatError => new JournalFormatError(path, line, `not a journal record: ${what}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not an object');
  const get = (name: string): unknown => Reflect.get(value, name);

  if (get('journal') === 'svc-send') {
    const version = get('version');
    if (version !== JOURNAL_VERSION) {
      throw new JournalFormatError(path, line, `a journal of format ${String(version)}, which this svc cannot read (it reads format ${JOURNAL_VERSION}); use the svc that wrote it`);
    }
    const run = get('run');
    if (typeof run !== 'object' || run === null) throw bad('a header without its run');
    const field = (name: string): unknown => Reflect.get(run, name);
    const from = field('from');
    const body = field('body');
    const recipients = field('recipients');
    const recipientCount = field('recipientCount');
    const media = field('media');
    if (typeof from !== 'string' || typeof body !== 'string' || typeof recipients !== 'string' || typeof recipientCount !== 'number' || !isStringArray(media)) {
      throw bad('a header whose run is incomplete');
    }
    const created = get('created');
    const svc = get('svc');
    const shard = get('shard');
    const k = member(shard, 'k');
    const n = member(shard, 'n');
    if (shard !== undefined && (typeof k !== 'number' || typeof n !== 'number')) throw bad('a header whose shard is not {"k", "n"}');
    const own = ownCountsOf(get('own'), () => bad('a header whose own counts are not {"recipients", "excluded"}'));
    const exclude = excludeOf(get('exclude'), () => bad('a header whose exclude is not {"digest", "numbers"}'));
    return {
      type: 'header',
      line,
      header: {
        version,
        run: { from, body, recipients, recipientCount, media },
        created: typeof created === 'string' ? created : '',
        svc: typeof svc === 'string' ? svc : '',
        ...(typeof k === 'number' && typeof n === 'number' ? { shard: { k, n } } : {}),
        ...(own !== undefined ? { own } : {}),
        ...(exclude !== undefined ? { exclude } : {}),
      },
    };
  }

  const type = get('type');
  if (type === 'launch') {
    const seq = get('seq');
    const to = get('to');
    if (!isSeq(seq) || !isStringArray(to)) throw bad('a launch without its seq or recipients');
    return { type, line, seq, to };
  }
  if (type === 'result') {
    const seq = get('seq');
    const to = get('to');
    const outcome = get('outcome');
    const at = get('at');
    if (!isSeq(seq) || !isStringArray(to)) throw bad('a result without its seq or recipients');
    if (typeof outcome !== 'string' || !(JOURNAL_OUTCOMES as readonly string[]).includes(outcome)) throw bad(`an unknown outcome ${JSON.stringify(outcome)}`);
    const messageId = get('messageId');
    const messageIds = get('messageIds');
    const status = get('status');
    const error = get('error');
    return {
      type,
      line,
      seq,
      to,
      outcome: outcome as JournalOutcome,
      at: typeof at === 'string' ? at : '',
      ...(typeof messageId === 'string' ? { messageId } : {}),
      ...(isMessageIds(messageIds, to.length) ? { messageIds } : {}),
      ...(typeof status === 'string' ? { status } : {}),
      ...(typeof error === 'object' && error !== null ? { error: error as JournalError } : {}),
    };
  }
  if (type === 'resume') {
    const at = get('at');
    const unknown = get('unknown');
    const torn = get('torn');
    const own = ownCountsOf(get('own'), () => bad('a resume record whose own counts are not {"recipients", "excluded"}'));
    const exclude = excludeOf(get('exclude'), () => bad('a resume record whose exclude is not {"digest", "numbers"}'));
    return {
      type,
      line,
      at: typeof at === 'string' ? at : '',
      unknown: unknown === 'resend' || unknown === 'skip' ? unknown : 'none',
      ...(typeof torn === 'object' && torn !== null ? { torn: torn as { line: number; bytes: string } } : {}),
      ...(exclude !== undefined ? { exclude } : {}),
      ...(own !== undefined ? { own } : {}),
    };
  }
  if (type === 'throttled') {
    const seq = get('seq');
    const to = get('to');
    const status = get('status');
    const at = get('at');
    if (!isSeq(seq) || !isStringArray(to)) throw bad('a throttled record without its seq or recipients');
    return { type, line, seq, to, status: typeof status === 'number' ? status : null, at: typeof at === 'string' ? at : '' };
  }
  if (type === 'pause') {
    const reason = get('reason');
    const until = get('until');
    const at = get('at');
    return { type, line, reason: typeof reason === 'string' ? reason : '', until: typeof until === 'string' ? until : '', at: typeof at === 'string' ? at : '' };
  }
  throw bad(`an unknown record type ${JSON.stringify(type)}`);
}

/** `value[name]` when value is an object, else undefined (a field of a record read from the file). */
function member(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}

/** A record's `own` counts, or undefined when it has none; `bad` when they are not two numbers. */
function ownCountsOf(value: unknown, bad: () => Error): JournalOwnCounts | undefined {
  if (value === undefined) return undefined;
  const recipients = member(value, 'recipients');
  const excluded = member(value, 'excluded');
  if (typeof recipients !== 'number' || typeof excluded !== 'number') throw bad();
  return { recipients, excluded };
}

/** A record's `exclude` (digest and size of the list), or undefined when it has none. */
function excludeOf(value: unknown, bad: () => Error): JournalExclude | undefined {
  if (value === undefined) return undefined;
  const digest = member(value, 'digest');
  const numbers = member(value, 'numbers');
  if (typeof digest !== 'string' || typeof numbers !== 'number') throw bad();
  return { digest, numbers };
}

/**
 * Reads a journal whole (streamed) into each recipient's final state: accepted when any request
 * for it was accepted; else unknown when an answer was unreadable or a request was in flight at a
 * crash; else rejected. Memory grows with the distinct recipients only (about 24 bytes each).
 */
export async function readJournal(path: string): Promise<JournalState> {
  const bits = new PhoneNumberMap();
  const open = new Map<number, string[]>();
  let header: JournalHeader | undefined;
  let exclude: JournalExclude | undefined;
  let records = 0;
  let lastSeq = 0;
  let validBytes = 0;
  let tornAt: number | undefined;
  let torn: JournalState['torn'];
  let sawAnything = false;
  for await (const record of readJournalRecords(path, {
    onTorn: (t) => {
      torn = { line: t.line, bytes: t.bytes };
      tornAt = t.offset;
    },
  })) {
    sawAnything = true;
    records++;
    switch (record.type) {
      case 'header':
        header = record.header;
        exclude = record.header.exclude;
        break;
      case 'launch':
        lastSeq = record.seq;
        open.set(record.seq, record.to);
        break;
      case 'result': {
        open.delete(record.seq);
        const bit = OUTCOME_BITS[record.outcome];
        for (const to of record.to) bits.set(to, (bits.get(to) ?? 0) | bit);
        break;
      }
      case 'throttled':
        // Refused unprocessed: the launch is closed and its recipients are as if never sent.
        open.delete(record.seq);
        break;
      case 'resume':
        if (record.exclude !== undefined) exclude = record.exclude;
        break;
      case 'pause':
        break;
    }
  }
  // The torn line's offset is where the whole records end.
  if (tornAt !== undefined) validBytes = tornAt;
  else if (sawAnything) validBytes = (await stat(path)).size;
  for (const to of open.values()) for (const number of to) bits.set(number, (bits.get(number) ?? 0) | IN_FLIGHT);

  const counts: JournalCounts = { accepted: 0, rejected: 0, unknown: 0, inFlight: 0 };
  bits.forEachValue((value) => {
    const state = stateFromBits(value);
    counts[state]++;
    if (state === 'unknown' && value & IN_FLIGHT) counts.inFlight++;
  });
  return {
    path,
    exists: header !== undefined,
    header,
    records,
    lastSeq,
    validBytes: header === undefined ? 0 : validBytes,
    torn: header === undefined ? undefined : torn,
    counts,
    exclude: header === undefined ? undefined : exclude,
    stateOf: (to) => {
      const value = bits.get(to);
      return value === undefined ? undefined : stateFromBits(value);
    },
    forEachRecipient: (visit) => bits.forEach((to, value) => visit(to, stateFromBits(value))),
  };
}

/** Where a journal's run and this one differ, in words; empty when they are the same run. */
export function runDifferences(journal: JournalRun, current: JournalRun): string[] {
  const differences: string[] = [];
  if (journal.from !== current.from) differences.push(`it sent from ${journal.from}, this run from ${current.from}`);
  if (journal.body !== current.body) differences.push('its message body (or template) was different');
  if (journal.recipients !== current.recipients) {
    differences.push(`its recipients were different (${journal.recipientCount} then, ${current.recipientCount} now)`);
  }
  if (journal.media.length !== current.media.length || journal.media.some((m, i) => current.media[i] !== m)) {
    differences.push('its media were different');
  }
  return differences;
}
