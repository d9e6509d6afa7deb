import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readJournalRecords } from '../../../src/send/journal/parser.js';
import type { JournalLine } from '../../../src/send/journal/format.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { onTestFinished } from 'vitest';
import { MOCK_ORIGIN } from '../../helpers/mock-api.js';

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
