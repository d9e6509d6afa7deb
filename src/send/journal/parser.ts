// Reading a bulk send journal line by line (its format: format.ts), checked as it goes: damage is
// refused with its line number, a torn last line reported apart. A reader without the journal's
// lock may meet a send writing it; second-look.ts says how it tells that from damage.

import { checksumHolds, HEADER_MAGIC, JournalFormatError, JOURNAL_OUTCOMES, JOURNAL_VERSION, member, type JournalError, type JournalExclude, type JournalLine, type JournalOutcome, type JournalOwnCounts } from './format.js';
import { JournalFile, lookAt } from './second-look.js';

export interface ReadOptions {
  /**
   * A last line without its line break, or (read without the lock) a damaged one that nothing
   * sound follows, `damaged` then: told, not yielded.
   */
  onTorn?: (torn: { line: number; bytes: Buffer; offset: number; damaged: boolean }) => void;
  /** Where the whole records read end (the start of a torn line), once the reading is over. */
  onEnd?: (validBytes: number) => void;
  /**
   * This process holds the journal's lock, so nobody writes it meanwhile: a line that fails is
   * damage at once. Without it (the default) a failing line gets a second look first.
   */
  lockHeld?: boolean;
}

/** Checks one line at a time, in file order: its record, and its sequence against the lines before. */
type CheckLine = (bytes: Buffer, lineNumber: number) => JournalLine;

/**
 * Every record of the journal in file order, checked: the header first, checksums, sequence
 * numbers, results that answer a launch. Throws JournalFormatError naming the line at fault.
 * A torn last line is not yielded; `onTorn` is told about it. Streamed: memory does not grow
 * with the file beyond the requests left open.
 */
export async function* readJournalRecords(path: string, options: ReadOptions = {}): AsyncGenerator<JournalLine, void, undefined> {
  const check = lineChecker(path);
  let file = await JournalFile.open(path);
  if (file === undefined) return;
  const live = options.lockHeld !== true;
  let line = 0;
  // Where the next line begins: the end of the records yielded, which a writer never changes.
  let offset = 0;
  let previous: Buffer | undefined;
  // Where a second look last found a sound line: a failure there again is the record's own.
  let lookedAt = -1;
  let data: Buffer = EMPTY;
  let torn: { bytes: Buffer; damaged: boolean } | undefined;
  try {
    reading: for (;;) {
      let start = 0;
      let end = data.indexOf(0x0a);
      while (end !== -1) {
        const bytes = data.subarray(start, end);
        let record: JournalLine;
        try {
          record = check(bytes, line + 1);
        } catch (error) {
          if (!live || !(error instanceof JournalFormatError) || offset === lookedAt) throw error;
          const next = await afterFailure(path, line + 1, offset, previous);
          if (next.kind === 'end') {
            torn = next.torn;
            break reading;
          }
          await file.close();
          ({ file, data } = next);
          lookedAt = offset;
          start = 0;
          end = data.indexOf(0x0a);
          continue;
        }
        line++;
        offset += end + 1 - start;
        previous = bytes;
        start = end + 1;
        yield record;
        end = data.indexOf(0x0a, start);
      }
      data = data.subarray(start);
      const chunk = await file.next();
      if (chunk !== undefined) {
        data = data.length === 0 ? chunk : Buffer.concat([data, chunk]);
        continue;
      }
      if (data.length === 0) break;
      // The file ends without a line break. After line 1 that is a torn last line; as line 1 it is
      // the beginning of a header, or a file that is not a journal.
      if (line > 0 || isTornHeader(data)) {
        torn = { bytes: data, damaged: false };
        break;
      }
      if (!live) throw notAJournal(path, data);
      const next = await afterFailure(path, 1, 0, undefined);
      if (next.kind === 'end') {
        torn = next.torn;
        break;
      }
      await file.close();
      ({ file, data } = next);
      lookedAt = 0;
    }
  } finally {
    await file.close();
  }
  options.onEnd?.(offset);
  if (torn !== undefined && torn.bytes.length > 0) options.onTorn?.({ line: line + 1, bytes: Buffer.from(torn.bytes), offset, damaged: torn.damaged });
}

const EMPTY = Buffer.alloc(0);

/** What a reading without the lock does once a line failed: go on from a second look, or end. */
type AfterFailure = { kind: 'go on'; file: JournalFile; data: Buffer } | { kind: 'end'; torn?: { bytes: Buffer; damaged: boolean } };

/**
 * Line `line`, beginning at `offset`, failed in a reading without the lock: one second look at
 * the file from there decides (second-look.ts for why).
 * - The line is sound now: what was read was an old torn line joined to a new record; the reading
 *   goes on from the look.
 * - Still damaged, and a sound record follows it: the damage is real, and refused with its line.
 * - Still damaged (or cut short) and nothing sound follows: it is the end being written, or a
 *   crash's leftover; reported as a torn line, never counted.
 * - The record read before it is gone: the journal was started over by a new run (which happens
 *   only to a journal that records no request); the reading ends with what it had read.
 * Line 1 has no record before it to be written after: a whole first line that is not a header
 * refuses the file, whatever follows, and so does a cut one that cannot be the start of one.
 * A refusal is believed once a look sees the same bytes again: a look is a plain read, and one
 * that meets a send cutting the file back could itself join old bytes to new ones.
 */
async function afterFailure(path: string, line: number, offset: number, previous: Buffer | undefined): Promise<AfterFailure> {
  let refused: Buffer | undefined;
  for (let looks = 1; ; looks++) {
    // svc send never changes a whole line once a sound record follows it, so a line that keeps
    // changing there is another program's doing: refused, rather than looked at for ever.
    if (looks > MAX_LOOKS) throw new JournalFormatError(path, line, `a record that changed at each of ${MAX_LOOKS} readings; something other than svc send is rewriting the journal`);
    const look = await lookAt(path, offset, previous);
    if (look.kind === 'sound') return { kind: 'go on', file: look.file, data: look.data };
    if (look.kind === 'replaced') return { kind: 'end' };
    const refuse = look.kind === 'cut' ? line === 1 && !isTornHeader(look.line) : line === 1 || look.soundAfter;
    if (!refuse) return { kind: 'end', torn: { bytes: look.line, damaged: look.kind === 'damaged' } };
    if (refused !== undefined && refused.equals(look.line)) throw refusal(path, look.line, line);
    refused = look.line;
  }
}

/** How many looks a damaged line that changes between them gets before it is refused. */
export const MAX_LOOKS = 64;

/** The error for a line a second look found damaged (or, as line 1, cut short where no header begins). */
function refusal(path: string, bytes: Buffer, line: number): JournalFormatError {
  return line === 1 ? notAJournal(path, bytes) : damagedRecord(path, line);
}

function damagedRecord(path: string, line: number): JournalFormatError {
  return new JournalFormatError(path, line, 'a damaged record (its checksum does not match); the journal cannot be trusted past this point');
}

/** The check of each line in turn: `line` counts from 1, and each call is the line after the last. */
function lineChecker(path: string): CheckLine {
  const open = new Map<number, string[]>();
  let lastSeq = 0;
  return (bytes, lineNumber) => {
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

function isSeq(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** A record's members by name. */
type Member = (name: string) => unknown;
/** The error for a record that is not one of the journal's, saying what is wrong with it. */
type Bad = (what: string) => JournalFormatError;

/** One line of the journal, checked: its checksum, its JSON, then its members by its type. */
function parseLine(path: string, bytes: Buffer, line: number): JournalLine {
  if (!checksumHolds(bytes)) {
    if (line === 1) throw notAJournal(path, bytes);
    throw damagedRecord(path, line);
  }
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new JournalFormatError(path, line, 'a damaged record (not JSON)');
  }
  const bad: Bad = (what) => new JournalFormatError(path, line, `not a journal record: ${what}`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad('not an object');
  const get: Member = (name) => Reflect.get(value, name);

  if (get('journal') === 'svc-send') return headerLine(path, line, get, bad);
  const type = get('type');
  if (type === 'launch') {
    const seq = get('seq');
    const to = get('to');
    if (!isSeq(seq) || !isStringArray(to)) throw bad('a launch without its seq or recipients');
    return { type, line, seq, to };
  }
  if (type === 'result') return resultLine(line, get, bad);
  if (type === 'resume') return resumeLine(line, get, bad);
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
  if (type === 'stop') return stopLine(line, get, bad);
  throw bad(`an unknown record type ${JSON.stringify(type)}`);
}

/** A `stop` record: where --budget stopped the run. */
function stopLine(line: number, get: Member, bad: Bad): JournalLine {
  const reason = get('reason');
  const budget = get('budget');
  const spent = get('spent');
  const next = get('next');
  const to = get('to');
  const currency = get('currency');
  const at = get('at');
  if (reason !== 'budget') throw bad(`a stop for an unknown reason ${JSON.stringify(reason)}`);
  if (![budget, spent, next].every((amount) => typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0) || typeof to !== 'string') {
    throw bad('a budget stop without its amounts or recipient');
  }
  return {
    type: 'stop',
    line,
    reason,
    budget: budget as number,
    spent: spent as number,
    next: next as number,
    to,
    ...(typeof currency === 'string' ? { currency } : {}),
    at: typeof at === 'string' ? at : '',
  };
}

/** The header (line 1): the format, the run it binds the journal to, and what the run began with. */
function headerLine(path: string, line: number, get: Member, bad: Bad): JournalLine {
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
  const toFile = get('toFile');
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
      ...(typeof toFile === 'string' && toFile !== '' ? { toFile } : {}),
    },
  };
}

function resultLine(line: number, get: Member, bad: Bad): JournalLine {
  const type = 'result';
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

function resumeLine(line: number, get: Member, bad: Bad): JournalLine {
  const type = 'resume';
  const at = get('at');
  const unknown = get('unknown');
  const torn = get('torn');
  const own = ownCountsOf(get('own'), () => bad('a resume record whose own counts are not {"recipients", "excluded"}'));
  const exclude = excludeOf(get('exclude'), () => bad('a resume record whose exclude is not {"digest", "numbers"}'));
  const optedOutSince = get('optedOutSince');
  if (optedOutSince !== undefined && !isStringArray(optedOutSince)) throw bad('a resume record whose optedOutSince is not a list of numbers');
  return {
    type,
    line,
    at: typeof at === 'string' ? at : '',
    unknown: unknown === 'resend' || unknown === 'skip' ? unknown : 'none',
    ...(typeof torn === 'object' && torn !== null ? { torn: torn as { line: number; bytes: string } } : {}),
    ...(exclude !== undefined ? { exclude } : {}),
    ...(own !== undefined ? { own } : {}),
    ...(optedOutSince !== undefined && optedOutSince.length > 0 ? { optedOutSince } : {}),
  };
}

/** A record's `own` counts, or undefined when it has none; `bad` when they are not two numbers. */
function ownCountsOf(value: unknown, bad: () => Error): JournalOwnCounts | undefined {
  if (value === undefined) return undefined;
  const recipients = member(value, 'recipients');
  const excluded = member(value, 'excluded');
  const optedOut = member(value, 'optedOut');
  const zoneUnknown = member(value, 'zoneUnknown');
  if (typeof recipients !== 'number' || typeof excluded !== 'number') throw bad();
  if ((optedOut !== undefined && typeof optedOut !== 'number') || (zoneUnknown !== undefined && typeof zoneUnknown !== 'number')) throw bad();
  return { recipients, excluded, ...(optedOut !== undefined ? { optedOut } : {}), ...(zoneUnknown !== undefined ? { zoneUnknown } : {}) };
}

/** A record's `exclude` (digest and size of the list), or undefined when it has none. */
function excludeOf(value: unknown, bad: () => Error): JournalExclude | undefined {
  if (value === undefined) return undefined;
  const digest = member(value, 'digest');
  const numbers = member(value, 'numbers');
  if (typeof digest !== 'string' || typeof numbers !== 'number') throw bad();
  return { digest, numbers };
}
