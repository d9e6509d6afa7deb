import { createHash } from 'node:crypto';
import { closeSync, createReadStream, openSync, readSync, unlinkSync } from 'node:fs';
import { writeFileAtomicSync } from '../../domain/files/atomic-write.js';
import { createInterface } from 'node:readline';
import type { JournalRun } from '../journal/format.js';
import type { ExcludeList } from './exclude.js';

// The numbers a journaled send leaves out, kept beside its journal (`JOURNAL.exclude`), so that
// `--resume` can take an exclude list that has grown since (people who opted out in the
// meantime) and refuse one that has lost numbers: the journal's header keeps only the list's
// digest, which can tell the same list from another, not a longer one from a shorter.
//
// The file: a first line of JSON that binds it to its journal (the journal's from-number, body
// and recipients digests, and the digest its header records, or "none" for a run started without
// a list), then the numbers, sorted, one a line. `digest` is the SHA-256 of those lines joined by
// LF, as the header's digest is of its list, so a record written at the start of a run has the
// header's digest. A resumed run with a longer list writes the record again with that list (the
// old numbers and the new): a later --resume must leave out those too. Written to a temporary
// file, synced and renamed over the old one, so it is the old list or the new, never half of one;
// mode 0600, as the journal (phone numbers).

const MAGIC = 'svc-send-exclude';
const FORMAT = 1;

export function excludeRecordPath(journal: string): string {
  return `${journal}.exclude`;
}

/** What a record belongs to: its journal's run, and the digest of the list the journal's header records ("none" without one). */
export interface ExcludeRecordBinding {
  run: Pick<JournalRun, 'from' | 'body' | 'recipients'>;
  base: string;
}

interface RecordHead {
  [MAGIC]: number;
  from: string;
  body: string;
  recipients: string;
  base: string;
  digest: string;
  numbers: number;
}

/** Writes the record of `list` for the journal at `journal` (replacing any). Throws the file system's error. */
export function writeExcludeRecord(journal: string, binding: ExcludeRecordBinding, list: ExcludeList): void {
  const path = excludeRecordPath(journal);
  const numbers = list.numbers();
  const head: RecordHead = {
    [MAGIC]: FORMAT,
    from: binding.run.from,
    body: binding.run.body,
    recipients: binding.run.recipients,
    base: binding.base,
    digest: list.digest,
    numbers: numbers.length,
  };
  // Whole or not at all: a record cut short by a full disk would leave out numbers a --resume must skip.
  let text = `${JSON.stringify(head)}\n`;
  for (const number of numbers) text += `${number}\n`;
  writeFileAtomicSync(path, text, { mode: 0o600 });
}

/** Removes a record left by an earlier journal of the same name (only a file that is one). */
export function removeExcludeRecord(journal: string): void {
  const path = excludeRecordPath(journal);
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return;
  }
  const start = Buffer.alloc(MAGIC.length + 8);
  let read = 0;
  try {
    read = readSync(fd, start, 0, start.length, 0);
  } finally {
    closeSync(fd);
  }
  if (start.toString('utf8', 0, read).startsWith(`{"${MAGIC}"`)) unlinkQuietly(path);
}

function unlinkQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Gone already, or not ours to remove.
  }
}

export type ExcludeRecordCheck =
  /** No record beside the journal. */
  | { kind: 'absent' }
  /** A record of another journal (another run, or another list in its header): not this journal's. */
  | { kind: 'other'; why: string }
  /** This journal's record, but its numbers do not match its digest: the list cannot be known. */
  | { kind: 'damaged'; why: string }
  /** This journal's record: how many numbers it holds, and which of them `given` lacks (the first few, and how many). */
  | { kind: 'read'; numbers: number; digest: string; missing: number; examples: string[] };

const EXAMPLES = 3;

/** Reads the record beside `journal` and checks each of its numbers against `given` (streamed). */
export async function checkExcludeRecord(journal: string, binding: ExcludeRecordBinding, given: ExcludeList | undefined): Promise<ExcludeRecordCheck> {
  const path = excludeRecordPath(journal);
  let stream;
  try {
    stream = createReadStream(path, { encoding: 'utf8' });
    await new Promise<void>((resolve, reject) => {
      stream!.once('open', () => resolve());
      stream!.once('error', reject);
    });
  } catch (error) {
    stream?.destroy();
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'absent' };
    throw error;
  }
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  let head: RecordHead | undefined;
  const hash = createHash('sha256');
  let count = 0;
  let missing = 0;
  const examples: string[] = [];
  try {
    for await (const line of lines) {
      if (head === undefined) {
        head = parseHead(line);
        if (head === undefined) return { kind: 'other', why: 'not a record of svc send' };
        if (head.from !== binding.run.from || head.body !== binding.run.body || head.recipients !== binding.run.recipients) {
          return { kind: 'other', why: 'the record of another run' };
        }
        if (head.base !== binding.base) return { kind: 'other', why: 'the record of another exclude list than the journal\'s' };
        continue;
      }
      if (line === '') continue;
      hash.update(count === 0 ? line : `\n${line}`);
      count++;
      if (given === undefined || !given.has(line)) {
        missing++;
        if (examples.length < EXAMPLES) examples.push(line);
      }
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (head === undefined) return { kind: 'other', why: 'an empty file' };
  const digest = `sha256:${hash.digest('hex')}`;
  if (count !== head.numbers || digest !== head.digest) {
    return { kind: 'damaged', why: `its ${count} numbers do not match the ${head.numbers} its first line records (or their digest)` };
  }
  return { kind: 'read', numbers: count, digest, missing, examples };
}

function parseHead(line: string): RecordHead | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const head = value as Partial<Record<keyof RecordHead, unknown>>;
  if (head[MAGIC] !== FORMAT) return undefined;
  const strings = [head.from, head.body, head.recipients, head.base, head.digest];
  if (!strings.every((s) => typeof s === 'string') || typeof head.numbers !== 'number') return undefined;
  return head as RecordHead;
}
