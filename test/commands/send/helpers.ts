import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readJournalRecords } from '../../../src/send/journal/parser.js';
import type { JournalLine } from '../../../src/send/journal/format.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, onTestFinished } from 'vitest';
import type { Clock } from '../../../src/clock.js';
import { runCli } from '../../helpers/cli.js';
import { MOCK_ENV, MOCK_ORIGIN } from '../../helpers/mock-api.js';

// A MockAgent whose POST /messages answers are computed from each request, for sends whose
// requests run concurrently (so that their order is not fixed).

export interface SeenSend {
  query: string;
  body: { from: string; to: string[]; body: string; mediaUrls?: string[] };
}

export type SendReply = (request: SeenSend, index: number) => { status: number; body?: unknown };

export interface SendMock {
  agent: MockAgent;
  sends: SeenSend[];
  /** Other requests (media uploads, number look-ups) with their bodies. */
  others: { method: string; path: string; body: unknown }[];
  close(): Promise<void>;
}

export function mockSends(reply: SendReply, extra: (pool: ReturnType<MockAgent['get']>, others: SendMock['others']) => void = () => {}): SendMock {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(MOCK_ORIGIN);
  const sends: SeenSend[] = [];
  const others: SendMock['others'] = [];
  pool
    .intercept({ method: 'POST', path: (path) => path.startsWith('/api/v1/messages?') })
    .reply((options) => {
      const text = typeof options.body === 'string' ? options.body : '';
      const seen: SeenSend = { query: options.path.slice(options.path.indexOf('?') + 1), body: JSON.parse(text) as SeenSend['body'] };
      sends.push(seen);
      const answer = reply(seen, sends.length - 1);
      return {
        statusCode: answer.status,
        data: answer.body === undefined ? '' : JSON.stringify(answer.body),
        responseOptions: { headers: answer.body === undefined ? {} : { 'content-type': 'application/json' } },
      };
    })
    .persist();
  extra(pool, others);
  return { agent, sends, others, close: () => agent.close() };
}

export const accepted = (request: SeenSend, index: number): { status: number; body: unknown } => ({
  status: 202,
  body: { messageId: `msg-${index}-${request.body.to[0]}`, status: 'queued', queuedAt: '2026-01-01T00:00:00Z' },
});

export function tempDir(): { dir: string; file(name: string, content: string | Buffer): string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-send-test-'));
  return {
    dir,
    file(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A temporary directory removed when the current test ends. */
export function testDir(): ReturnType<typeof tempDir> {
  const made = tempDir();
  onTestFinished(made.cleanup);
  return made;
}

/** `count` distinct E.164 numbers. */
export function numbers(count: number, base = 15557000000): string[] {
  return Array.from({ length: count }, (_, i) => `+${base + i}`);
}

export const PNG_BYTES = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100, 1)]);

/** Every record of a journal, checked by the journal's own reader. */
export async function journalRecords(path: string): Promise<JournalLine[]> {
  const records: JournalLine[] = [];
  for await (const record of readJournalRecords(path)) records.push(record);
  return records;
}

/**
 * Removes the result records of these recipients, as if the process had died after launching
 * their requests and before their answers were journaled.
 */
export function dropResultsFor(path: string, recipients: readonly string[]): void {
  const lines = readFileSync(path, 'utf8').split('\n');
  const kept = lines.filter((line) => !(line.startsWith('{"type":"result"') && recipients.some((to) => line.includes(`"${to}"`))));
  writeFileSync(path, kept.join('\n'));
}

/**
 * A service for in-process sends from one number: its look-up, POST /messages accepting each
 * request (or rejecting it when `reject` says so, by recipient and attempt) with the recipients
 * of every request in `posts`, and GET /messages/{id} reading each accepted message as delivered
 * (for `send report`).
 */
export interface NumberService {
  agent: MockAgent;
  posts: string[][];
  close(): Promise<void>;
}

export function numberService(from: string, reject: (to: string, attempt: number) => boolean = () => false): NumberService {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get(MOCK_ORIGIN);
  const posts: string[][] = [];
  const attempts = new Map<string, number>();
  const json = { headers: { 'content-type': 'application/json' } };
  pool.intercept({ method: 'GET', path: `/api/v1/phone-numbers/${encodeURIComponent(from)}` }).reply(200, { number: from, settings: {} }, json).persist();
  pool
    .intercept({ method: 'POST', path: (path) => path.startsWith('/api/v1/messages?') })
    .reply((options) => {
      const to = (JSON.parse(String(options.body)) as { to: string[] }).to;
      posts.push(to);
      const attempt = (attempts.get(to[0]!) ?? 0) + 1;
      attempts.set(to[0]!, attempt);
      if (reject(to[0]!, attempt)) {
        return { statusCode: 400, data: JSON.stringify({ message: 'bad', title: 'Bad', errorCode: 'VALIDATION_ERROR' }), responseOptions: json };
      }
      return { statusCode: 202, data: JSON.stringify({ messageId: `m-${to[0]}`, status: 'queued' }), responseOptions: json };
    })
    .persist();
  pool
    .intercept({ method: 'GET', path: (path) => path.startsWith('/api/v1/messages/') })
    .reply((options) => {
      const id = decodeURIComponent(String(options.path).split('?')[0]!.split('/').pop()!);
      return { statusCode: 200, data: JSON.stringify({ messageId: id, status: 'delivered' }), responseOptions: json };
    })
    .persist();
  return { agent, posts, close: () => agent.close() };
}

/**
 * A test file's number service: `start` makes the one a test runs against (closed after the
 * test), `current` is it, and `run` runs the CLI against it with the mock environment.
 */
export function numberServiceScope(): {
  start(...args: Parameters<typeof numberService>): NumberService;
  readonly current: NumberService;
  run(argv: string[], clock: Clock, options?: Parameters<typeof runCli>[1]): ReturnType<typeof runCli>;
} {
  let service: NumberService | undefined;
  afterEach(async () => {
    await service?.close();
    service = undefined;
  });
  const current = (): NumberService => {
    if (service === undefined) throw new Error('no number service started in this test');
    return service;
  };
  return {
    start: (...args) => (service = numberService(...args)),
    get current() {
      return current();
    },
    run: (argv, clock, options = {}) => runCli(argv, { clock, ...options, env: { ...MOCK_ENV, ...options.env }, dispatcher: current().agent }),
  };
}
