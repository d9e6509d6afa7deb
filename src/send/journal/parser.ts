// Reading a bulk send journal line by line (its format: format.ts), checked as it goes: damage is
// refused with its line number, a torn last line reported apart.

import { createReadStream } from 'node:fs';
import { checksumHolds, HEADER_MAGIC, JournalFormatError, JOURNAL_OUTCOMES, JOURNAL_VERSION, member, type JournalError, type JournalExclude, type JournalLine, type JournalOutcome, type JournalOwnCounts } from './format.js';

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
    throw new JournalFormatError(path, line, 'a damaged record (its checksum does not match); the journal cannot be trusted past this point');
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
