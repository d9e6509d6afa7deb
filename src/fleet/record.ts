// The write-ahead record of `apply`: what the live state cannot tell after a crash. Before an
// order leaves, its numbers are written and fsynced; once answered, its order id; once finished,
// how it ended. A run killed at any moment and run again reads it back: an order it knows of and
// that is still in flight is waited for (one read an order, not one a number), never submitted
// again, and a number whose order failed is said to be tried again. Each line carries a checksum,
// so a line torn by the kill is recognised and ignored. The record is kept per fleet file and
// service account, and removed once an apply ends with nothing in flight.

import { createHash, randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { lockFileSync, LockHeldError, type FileLock } from '../domain/files/lock.js';
import { CliError, ExitCode } from '../errors.js';
import { cannotWrite } from '../input/file-errors.js';
import { errorCode, fileProblem } from '../domain/files/reasons.js';

export type RecordLine =
  /** About to submit: nothing is known of these numbers' order until the answer. */
  | { t: 'intent'; key: string; action: 'Provision' | 'Unprovision'; tenant: string; numbers: string[] }
  /** The service took the order. */
  | { t: 'submitted'; key: string; orderId: string }
  /** The service refused it: nothing was ordered. */
  | { t: 'refused'; key: string; status: number | null; message: string }
  /** The order ended. */
  | { t: 'finished'; orderId: string; outcome: 'completed' | 'failed'; failed: string[] };

export interface KnownOrder {
  orderId: string;
  action: 'Provision' | 'Unprovision';
  tenant: string;
  numbers: string[];
  outcome?: 'completed' | 'failed' | undefined;
  failed: string[];
}

export interface RecordState {
  /** Orders with an id, oldest first. */
  orders: KnownOrder[];
  /** Submissions whose answer never came (killed mid-request): the live state says whether they were taken. */
  unanswered: { key: string; numbers: string[] }[];
  /** Lines that did not check out (a torn last line after a kill). */
  damaged: number;
}

export function recordPath(dir: string, file: string, baseUrl: string, username: string): string {
  const key = createHash('sha256').update(`${resolve(file)}\n${baseUrl}\n${username}`).digest('hex').slice(0, 24);
  return join(dir, 'apply', `${key}.jsonl`);
}

function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 16);
}

export function readRecord(path: string): RecordState {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return { orders: [], unanswered: [], damaged: 0 };
    // svc's own file, not the user's input: a failure (exit 1) naming it, before any write, since
    // what it would have said about orders in flight cannot be known without it.
    throw new CliError(`Cannot read the apply record ${path}: ${fileProblem(error)}; nothing was changed`, ExitCode.Failure, {
      hints: ['It holds the orders an earlier apply left in flight; make it readable (or remove it if no apply of this file is in flight) and run again.'],
    });
  }
  const intents = new Map<string, Extract<RecordLine, { t: 'intent' }>>();
  const orders = new Map<string, KnownOrder>();
  const answered = new Set<string>();
  let damaged = 0;
  for (const raw of text.split('\n')) {
    if (raw === '') continue;
    let line: (RecordLine & { sum?: string }) | undefined;
    try {
      line = JSON.parse(raw) as RecordLine & { sum?: string };
    } catch {
      damaged++;
      continue;
    }
    const { sum, ...rest } = line;
    if (sum !== checksum(JSON.stringify(rest))) {
      damaged++;
      continue;
    }
    switch (line.t) {
      case 'intent':
        intents.set(line.key, line);
        break;
      case 'submitted': {
        answered.add(line.key);
        const intent = intents.get(line.key);
        if (intent !== undefined) orders.set(line.orderId, { orderId: line.orderId, action: intent.action, tenant: intent.tenant, numbers: intent.numbers, failed: [] });
        break;
      }
      case 'refused':
        answered.add(line.key);
        break;
      case 'finished': {
        const order = orders.get(line.orderId);
        if (order !== undefined) {
          order.outcome = line.outcome;
          order.failed = line.failed;
        }
        break;
      }
    }
  }
  const unanswered = [...intents.values()].filter((i) => !answered.has(i.key)).map((i) => ({ key: i.key, numbers: i.numbers }));
  return { orders: [...orders.values()], unanswered, damaged };
}

/** Appends lines, each fsynced before append() returns: a line written is a line kept. */
export class RecordWriter {
  private fd: number | undefined;
  private readonly run = randomBytes(4).toString('hex');
  private count = 0;

  constructor(readonly path: string) {}

  /** A key for the next submission, unique across runs. */
  nextKey(): string {
    return `${this.run}-${++this.count}`;
  }

  private lock: FileLock | undefined;

  /**
   * Takes the record for this run: two applies of one file against one account at once would
   * each see the other's numbers half-ordered, so the second is refused while the first runs.
   */
  claim(fileName: string): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
      this.lock = lockFileSync(this.path, { command: `svc apply -f ${fileName}` });
    } catch (error) {
      if (error instanceof LockHeldError) {
        throw new CliError(`Another \`svc apply -f ${fileName}\` is running against this account (${error.message}); let it finish, then run again`, ExitCode.Failure);
      }
      throw cannotWrite('the apply record', this.path, error);
    }
  }

  append(line: RecordLine): void {
    try {
      if (this.fd === undefined) {
        mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
        this.fd = openSync(this.path, 'a', 0o600);
      }
      const text = JSON.stringify(line);
      const sealed = `${text.slice(0, -1)},"sum":"${checksum(text)}"}\n`;
      writeSync(this.fd, sealed);
      fsyncSync(this.fd);
    } catch (error) {
      // Nothing is sent that is not recorded first: the order this line announces does not leave.
      throw cannotWrite('the apply record', this.path, error, ['Nothing more was sent; run `svc apply` again once it can be written.']);
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.lock?.release();
    this.lock = undefined;
  }

  /** Nothing is left in flight: the next run needs nothing from this record. */
  remove(): void {
    rmSync(this.path, { force: true });
    this.close();
  }
}
