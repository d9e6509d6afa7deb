// The bulk send journal (`svc send --journal FILE`, docs/decisions.md#bulk-send-journal): a write-ahead
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
//             "exclude"?:{"digest","numbers"},"own"?:{"recipients","excluded","optedOut"?,"zoneUnknown"?},
//             "optedOutSince"?:["+1…"],"crc":"…"}
//             `exclude` and `own` when the resumed run's --exclude-file has grown (numbers added
//             since): from then on they stand for the header's, so that the journal itself says
//             which list a later --resume must keep to, whatever happens to its JOURNAL.exclude.
//             `optedOutSince` names the recipients the journal already holds as rejected or of
//             unknown outcome whom this session leaves out because they are on the opt-out list
//             now (they are among `own.optedOut`): until the next resume record, a report counts
//             each of them once, as opted out, not also as owed. Every resume record says it
//             afresh (absent: nobody), since a person may opt back in between sessions. An svc
//             that predates the member reads the record and ignores it (it counts them twice).
//   throttled {"type":"throttled","seq":N,"to":[…],"status":429|503,"at":"ISO","crc":"…"}    the request
//             was refused unprocessed (throttled): its launch is closed, no outcome; sent again later
//   pause    {"type":"pause","reason":"window","window":"…","until":"ISO","at":"ISO","crc":"…"}
//             the run waits for its send window (--window); nothing of it is in flight
//   stop     {"type":"stop","reason":"budget","budget":N,"spent":N,"next":N,"to":"+1…","currency"?,"at":"ISO","crc":"…"}
//             the run launched nothing more from here: the message to `to` would have cost `next`
//             and taken `spent` past `budget` (amounts in millionths of the --prices currency);
//             a later --resume must give a larger --budget to go on
// The header has `"toFile":"/abs/path"` when the run sent to a --to-file (not standard input),
// `"shard":{"k":K,"n":N}` when the run was started with --shard K/N, and
// `"own":{"recipients","excluded","optedOut"?,"zoneUnknown"?}`: the run's own recipients, and
// those it leaves out by --exclude-file, by the opt-out list and for a time zone it cannot tell
// (the last two only when there are any), so that a report can say why it counts fewer than the
// file holds. A resume record carries `own` again when the counts have changed since.
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
// line number: a journal that cannot be trusted must not decide who is sent to. (A reader without
// the journal's lock first takes a second look, since a send may be writing the file as it reads:
// second-look.ts.) Journals of format
// 1 (one JSON line per answer, no header, written by svc before 0.2) are refused with an
// explanation: they cannot show which requests were in flight.

import { crc32 } from 'node:zlib';

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
  /** --shard K/N of the run; `--resume` must give the same. */
  shard?: { k: number; n: number };
  /** This run's own recipients (its shard, less --exclude-file) and those --exclude-file left out; absent in older journals. */
  own?: JournalOwnCounts;
  /** The --exclude-file's set of numbers (digest and size); `--resume` must give the same. Absent without one, and in older journals. */
  exclude?: JournalExclude;
  /**
   * Where the --to-file was (its absolute path), for `send report --failed-to` to take the failed
   * recipients' rows from; only a name: `run.recipients` says whether the file there is still it.
   */
  toFile?: string;
}

export interface JournalExclude {
  digest: string;
  numbers: number;
}

export interface JournalOwnCounts {
  recipients: number;
  excluded: number;
  /** Left out because they opted out of the sending number (absent when none, and in older journals). */
  optedOut?: number;
  /** Held back because their time zone cannot be told (per-recipient --window; absent when none). */
  zoneUnknown?: number;
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
  | {
      type: 'resume';
      line: number;
      at: string;
      unknown: UnknownChoice | 'none';
      torn?: { line: number; bytes: string };
      exclude?: JournalExclude;
      own?: JournalOwnCounts;
      /** Recipients the journal held as not accepted whom this session leaves out as opted out since. */
      optedOutSince?: string[];
    }
  | { type: 'throttled'; line: number; seq: number; to: string[]; status: number | null; at: string }
  | { type: 'pause'; line: number; reason: string; until: string; at: string }
  | ({ type: 'stop'; line: number } & JournalBudgetStop);

/** Where --budget stopped a run (a `stop` record): amounts in millionths of the prices' currency. */
export interface JournalBudgetStop {
  reason: 'budget';
  budget: number;
  spent: number;
  next: number;
  to: string;
  currency?: string;
  at: string;
}

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
export const HEADER_MAGIC = '{"journal":"svc-send"';

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
export function sealText(text: string): string {
  return `${text.slice(0, -1)}${CRC_KEY}${hex8(crc32(text))}"}\n`;
}

const CLOSE_BRACE = Buffer.from('}');

/** True when the line (without its LF) ends in a checksum that matches the rest. */
export function checksumHolds(line: Buffer): boolean {
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


/**
 * Each recipient's message id from the answer to a request to several recipients: its
 * `messages: [{messageId, to, status}, ...]` (docs/decisions.md#messages), matched by number (an entry without
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

/** `value[name]` when value is an object, else undefined (a field of a record read from the file). */
export function member(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? Reflect.get(value, name) : undefined;
}
