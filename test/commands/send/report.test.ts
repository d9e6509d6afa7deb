import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { createTenant, obj, provisionAndWait, startHarness, type Harness } from '../../sandbox/helpers.js';
import { MOCK_ENV, MOCK_ORIGIN } from '../../helpers/mock-api.js';
import { MockAgent } from 'undici';
import { sealRecord } from '../../../src/send/journal/format.js';
import { accepted, mockSends, numbers, tempDir } from './helpers.js';

// `svc send report` against the sandbox: 1,000 recipients, 100 of them in the failing range.
// Its counts must equal what the sandbox itself says about every message, and a second report
// must not read a final status again (the sandbox's request log counts the reads).

const FROM = '+15557770100';
const RECIPIENTS = 1000;
const FAILING = 100;

let h: Harness;
const log: string[] = [];
const work = mkdtempSync(join(tmpdir(), 'svc-report-'));
let env: Record<string, string>;

beforeAll(async () => {
  h = await startHarness({ messageStepMs: 5, logRequests: true, log: (line) => log.push(line) });
  const tenant = await createTenant(h, { domain: 'report.example.com' });
  await provisionAndWait(h, tenant, [FROM]);
  env = { SVC_BASE_URL: h.sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox', SVC_DATA_DIR: join(work, 'data') };
});
afterAll(async () => {
  await h.close();
  rmSync(work, { recursive: true, force: true });
});

const messageReads = (): number => log.filter((line) => line.startsWith('GET /api/v1/messages/')).length;

describe('svc send report against the sandbox', () => {
  it('counts what the sandbox counts, caches final statuses, and writes the failed recipients back', async () => {
    const csv = join(work, 'customers.csv');
    const rows = ['phone,name,order'];
    for (let i = 0; i < RECIPIENTS; i++) {
      const failing = i % (RECIPIENTS / FAILING) === 0;
      rows.push(`${failing ? `+1555010${String(i).padStart(4, '0')}` : `+1415600${String(i).padStart(4, '0')}`},"Customer, ${i}",A-${i}`);
    }
    writeFileSync(csv, `${rows.join('\n')}\n`);
    const journal = join(work, 'run.jsonl');
    const sent = await runCli(['send', '--from', FROM, '--to-file', csv, '--body', 'Hi {{name}}, order {{order}} shipped', '--async', '--journal', journal, '--concurrency', '16', '-y', '-o', 'ndjson'], { env });
    expect(sent.code, sent.stderr).toBe(0);

    const clock = fakeClock();
    const first = await runCli(['send', 'report', '--journal', journal, '--watch', '--timeout', '100000', '--json', '--failed-to', join(work, 'retry.csv'), '--to-file', csv], { env, clock });
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout) as {
      total: Record<string, number>;
      statuses: Record<string, number>;
      failures: { errorCode: string | null; count: number }[];
      final: boolean;
      reads: number;
      sendToDelivery: { count: number; p50Ms: number | null; maxMs: number | null };
    };
    expect(report.total).toEqual({ recipients: RECIPIENTS, accepted: RECIPIENTS, rejected: 0, unknown: 0, notYetSent: 0, excluded: 0, optedOut: 0, zoneUnknown: 0 });
    expect(report.final).toBe(true);

    // The sandbox's own word on every message the send accepted.
    const ids = sent.stdout.trimEnd().split('\n').map((line) => (JSON.parse(line) as { messageId: string }).messageId);
    expect(ids).toHaveLength(RECIPIENTS);
    const own: Record<string, number> = { delivered: 0, sent: 0, sending: 0, queued: 0, failed: 0, unknown: 0 };
    const codes = new Map<string, number>();
    for (const id of ids) {
      const message = obj(await h.api('GET', `/messages/${id}`));
      own[String(message['status'])]! += 1;
      if (message['status'] === 'failed') codes.set(String(message['errorCode']), (codes.get(String(message['errorCode'])) ?? 0) + 1);
    }
    expect(report.statuses).toEqual(own);
    expect(own['failed']).toBe(FAILING);
    expect(report.failures.map((f) => [f.errorCode, f.count])).toEqual([...codes]);
    expect(report.sendToDelivery.count).toBe(RECIPIENTS - FAILING);
    expect(report.sendToDelivery.p50Ms).not.toBeNull();

    // The failed recipients, with their columns, as a file svc send --to-file takes again.
    const retry = readFileSync(join(work, 'retry.csv'), 'utf8').trimEnd().split('\n');
    expect(retry[0]).toBe('phone,name,order');
    expect(retry).toHaveLength(FAILING + 1);
    expect(retry[1]).toBe('+15550100000,"Customer, 0",A-0');
    const dry = await runCli(['send', '--from', FROM, '--to-file', join(work, 'retry.csv'), '--body', 'Hi {{name}}', '--dry-run', '--json'], { env });
    expect(dry.code, dry.stderr).toBe(0);
    expect((JSON.parse(dry.stdout) as { recipients: number }).recipients).toBe(FAILING);

    // A second report reads nothing: every status is final and cached.
    const before = messageReads();
    const second = await runCli(['send', 'report', '--journal', journal, '--json'], { env, clock });
    expect(second.code).toBe(0);
    expect(messageReads()).toBe(before);
    const again = JSON.parse(second.stdout) as { statuses: Record<string, number>; reads: number };
    expect(again.reads).toBe(0);
    expect(again.statuses).toEqual(own);
  }, 120_000);
});

describe('svc send report after a send to several --to recipients (one request)', () => {
  it('journals each recipient\'s message id and reads the status of every one', async () => {
    const journal = join(work, 'several.jsonl');
    const to = ['+14156000001', '+14156000002', '+15550100001'];
    const sent = await runCli(['send', '--from', FROM, ...to.flatMap((n) => ['--to', n]), '--body', 'Hi all', '--async', '--journal', journal, '-y', '--json'], { env });
    expect(sent.code, sent.stderr).toBe(0);
    const answer = (JSON.parse(sent.stdout) as { messages: { messageId: string; to: string }[] }[])[0]!;
    const before = messageReads();
    const run = await runCli(['send', 'report', '--journal', journal, '--watch', '--timeout', '100000', '--json'], { env, clock: fakeClock() });
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as { total: Record<string, number>; statuses: Record<string, number>; final: boolean };
    expect(report.total).toMatchObject({ recipients: 3, accepted: 3 });
    // The third is in the sandbox's failing range: every message's own status, none unknown.
    expect(report.statuses).toEqual({ delivered: 2, sent: 0, sending: 0, queued: 0, failed: 1, unknown: 0 });
    expect(report.final).toBe(true);
    // Each recipient's message was read (GET /messages/{id}), the first's and the others'.
    const read = log.slice(0).filter((line) => line.startsWith('GET /api/v1/messages/'));
    for (const message of answer.messages) expect(read.some((line) => line.includes(message.messageId))).toBe(true);
    expect(messageReads()).toBeGreaterThanOrEqual(before + 3);
    const ndjson = await runCli(['send', 'report', '--journal', journal, '-o', 'ndjson'], { env });
    const lines = ndjson.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as { to: string; messageId: string });
    expect(Object.fromEntries(lines.map((line) => [line.to, line.messageId]))).toEqual(Object.fromEntries(answer.messages.map((m) => [m.to, m.messageId])));
  });
});

describe('svc send report, journal side', () => {
  const header = (recipientCount: number, shard?: { k: number; n: number }): string =>
    sealRecord({
      journal: 'svc-send',
      version: 2,
      run: { from: FROM, body: 'sha256:00', recipients: 'sha256:11', recipientCount, media: [] },
      created: '2026-01-01T00:00:00Z',
      svc: '0.1.0',
      ...(shard ? { shard, own: { recipients: recipientCount, excluded: 0 } } : {}),
    });
  const launch = (seq: number, to: string): string => sealRecord({ type: 'launch', seq, to: [to] });
  const result = (seq: number, to: string, outcome: string, extra: Record<string, unknown> = {}): string =>
    sealRecord({ type: 'result', seq, to: [to], outcome, ...extra, at: '2026-01-01T00:00:01Z' });

  it('merges shard journals: outcomes per shard and in total, who is owed, and --watch timing out is exit 5', async () => {
    const a = join(work, 'a.jsonl');
    const b = join(work, 'b.jsonl');
    writeFileSync(a, header(3, { k: 1, n: 2 }) + launch(1, '+14155550001') + result(1, '+14155550001', 'accepted', { messageId: 'm1' }) + launch(2, '+14155550002') + result(2, '+14155550002', 'rejected', { error: { message: 'bad number', status: 400 } }));
    // Shard 2 died with a request in flight: unknown; one recipient never launched.
    writeFileSync(b, header(3, { k: 2, n: 2 }) + launch(1, '+14155550003') + result(1, '+14155550003', 'accepted', { messageId: 'm3' }) + launch(2, '+14155550004'));
    const agent = new MockAgent();
    agent.disableNetConnect();
    const pool = agent.get(MOCK_ORIGIN);
    let gets = 0;
    pool
      .intercept({ path: (p) => p.startsWith('/api/v1/messages/'), method: 'GET' })
      .reply((request) => {
        gets++;
        const id = request.path.split('/').pop();
        return { statusCode: 200, data: { messageId: id, status: id === 'm1' ? 'delivered' : 'sending', queuedAt: '2026-01-01T00:00:00Z', deliveredAt: id === 'm1' ? '2026-01-01T00:00:02Z' : null } };
      })
      .persist();
    const clock = fakeClock();
    const run = await runCli(['send', 'report', '--journal', a, '--journal', b, '--watch', '--timeout', '10', '--json'], { env: { ...MOCK_ENV, SVC_DATA_DIR: join(work, 'd2') }, dispatcher: agent, clock });
    expect(run.code).toBe(5);
    expect(run.stderr).toMatch(/--watch timed out: 1 message not yet delivered or failed/);
    const report = JSON.parse(run.stdout) as { journals: { shard: unknown; counts: Record<string, number> }[]; total: Record<string, number>; owed: { to: string; state: string }[]; statuses: Record<string, number>; sendToDelivery: { p50Ms: number } };
    expect(report.journals.map((j) => j.shard)).toEqual([{ k: 1, n: 2 }, { k: 2, n: 2 }]);
    expect(report.journals[0]!.counts).toEqual({ recipients: 3, accepted: 1, rejected: 1, unknown: 0, notYetSent: 1, excluded: 0, optedOut: 0, zoneUnknown: 0 });
    expect(report.journals[1]!.counts).toEqual({ recipients: 3, accepted: 1, rejected: 0, unknown: 1, notYetSent: 1, excluded: 0, optedOut: 0, zoneUnknown: 0 });
    expect(report.total).toEqual({ recipients: 6, accepted: 2, rejected: 1, unknown: 1, notYetSent: 2, excluded: 0, optedOut: 0, zoneUnknown: 0 });
    expect(report.owed.map((o) => [o.to, o.state])).toEqual([
      ['+14155550002', 'rejected'],
      ['+14155550004', 'unknown'],
    ]);
    expect(report.statuses).toMatchObject({ delivered: 1, sending: 1 });
    expect(report.sendToDelivery.p50Ms).toBe(2000);
    // Every 2 s until the deadline at 10 s: the first read, then four more of the one still
    // moving (none at the deadline itself); m1 once.
    expect(gets).toBe(2 + 4);
    expect(clock.sleeps.every((ms) => ms <= 2000)).toBe(true);
    // The text says --watch timed out waiting, not that it waits.
    const text = await runCli(['send', 'report', '--journal', a, '--journal', b, '--watch', '--timeout', '4'], { env: { ...MOCK_ENV, SVC_DATA_DIR: join(work, 'd2') }, dispatcher: agent, clock: fakeClock() });
    expect(text.code).toBe(5);
    expect(text.stdout).toContain('not all final when --watch timed out');
    expect(text.stdout).not.toContain('--watch waits');
    const once = await runCli(['send', 'report', '--journal', a, '--journal', b], { env: { ...MOCK_ENV, SVC_DATA_DIR: join(work, 'd2') }, dispatcher: agent, clock: fakeClock() });
    expect(once.stdout).toContain('not all final yet, --watch waits');
    await agent.close();
  });

  it('real shard journals of one list with an exclude file: the list counted once, nothing owed when every one was accepted', async () => {
    const d = tempDir();
    const list = numbers(302, 14155560000);
    const file = d.file('list.txt', `${list.join('\n')}\n`);
    const exclude = d.file('optout.txt', `${list[5]}\n${list[200]}\n`);
    const mock = mockSends(accepted, (pool) => {
      pool.intercept({ method: 'GET', path: (p) => p.startsWith('/api/v1/phone-numbers/') }).reply(200, { number: FROM, settings: {} }).persist();
      pool
        .intercept({ method: 'GET', path: (p) => p.startsWith('/api/v1/messages/') })
        .reply((request) => ({ statusCode: 200, data: { messageId: request.path.split('/').pop(), status: 'delivered' } }))
        .persist();
    });
    try {
      const options = { env: { ...MOCK_ENV, SVC_DATA_DIR: join(d.dir, 'data') }, dispatcher: mock.agent, clock: fakeClock() };
      const journals = [1, 2].map((k) => join(d.dir, `shard-${k}.jsonl`));
      for (const [i, journal] of journals.entries()) {
        const sent = await runCli(['send', '--from', FROM, '--to-file', file, '--body', 'Hi', '--async', '--shard', `${i + 1}/2`, '--exclude-file', exclude, '--journal', journal, '--yes', '-o', 'ndjson'], options);
        expect(sent.code, sent.stderr).toBe(0);
      }
      expect(mock.sends).toHaveLength(300);
      const args = ['send', 'report', '--journal', journals[0]!, '--journal', journals[1]!];
      const json = await runCli([...args, '--json'], options);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as { journals: { counts: Record<string, number> }[]; total: Record<string, number>; owed: unknown[] };
      expect(report.total).toEqual({ recipients: 302, accepted: 300, rejected: 0, unknown: 0, notYetSent: 0, excluded: 2, optedOut: 0, zoneUnknown: 0 });
      for (const journal of report.journals) {
        expect(journal.counts['notYetSent']).toBe(0);
        expect(journal.counts['recipients']).toBe(journal.counts['accepted']! + journal.counts['excluded']!);
      }
      expect(report.owed).toEqual([]);
      const text = await runCli(args, options);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('Every recipient was accepted.');
      expect(text.stdout).toMatch(/^total\s+302\s+300\s+0\s+0\s+0\s+2$/m);
    } finally {
      await mock.close();
      d.cleanup();
    }
  });

  it('reads failure-like statuses as failed, reads a 404 again next round, and tells of a read that fails and reads it again', async () => {
    const journal = join(work, 'statuses.jsonl');
    const to = ['+14155550001', '+14155550002', '+14155550003', '+14155550004', '+14155550005'];
    const ids = ['m-undelivered', 'm-expired', 'm-rejected', 'm-gone', 'm-flaky'];
    writeFileSync(journal, header(5) + to.map((n, i) => launch(i + 1, n) + result(i + 1, n, 'accepted', { messageId: ids[i] })).join(''));
    const agent = new MockAgent();
    agent.disableNetConnect();
    const reads = new Map<string, number>();
    agent
      .get(MOCK_ORIGIN)
      .intercept({ path: (p) => p.startsWith('/api/v1/messages/'), method: 'GET' })
      .reply((request): { statusCode: number; data: object } => {
        const id = request.path.split('/').pop()!;
        const count = (reads.get(id) ?? 0) + 1;
        reads.set(id, count);
        // Not readable yet on the first round (a message the service has not made visible yet).
        if (id === 'm-gone' && count === 1) return { statusCode: 404, data: { message: 'No such message', title: 'Not found' } };
        if (id === 'm-gone') return { statusCode: 200, data: { messageId: id, status: 'delivered' } };
        // Fails for longer than the client's own retries: the first round cannot read it.
        if (id === 'm-flaky' && count <= 12) return { statusCode: 500, data: { message: 'boom', title: 'Server error' } };
        return { statusCode: 200, data: { messageId: id, status: id === 'm-flaky' ? 'delivered' : id.slice(2) } };
      })
      .persist();
    const options = { env: { ...MOCK_ENV, SVC_DATA_DIR: join(work, 'd-statuses') }, dispatcher: agent, clock: fakeClock() };
    const run = await runCli(['send', 'report', '--journal', journal, '--watch', '--timeout', '600', '--json'], options);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/cannot read the status of message m-flaky \(read again next round\)/);
    const report = JSON.parse(run.stdout) as { statuses: Record<string, number>; final: boolean };
    expect(report.statuses).toEqual({ delivered: 2, sent: 0, sending: 0, queued: 0, failed: 3, unknown: 0 });
    expect(report.final).toBe(true);
    expect(reads.get('m-gone')).toBe(2);
    // Every status is final and cached: a second report reads nothing.
    const before = [...reads.values()].reduce((a, b) => a + b, 0);
    const again = await runCli(['send', 'report', '--journal', journal, '--json'], options);
    expect(again.code, again.stderr).toBe(0);
    expect([...reads.values()].reduce((a, b) => a + b, 0)).toBe(before);
    await agent.close();
  });

  it('a 404 is unknown for this report only: never cached (an older cache\'s 404 too), read again by the next report', async () => {
    const d = tempDir();
    try {
      const journal = d.file('j.jsonl', header(2) + launch(1, '+14155550001') + result(1, '+14155550001', 'accepted', { messageId: 'm-late' }) + launch(2, '+14155550002') + result(2, '+14155550002', 'accepted', { messageId: 'm-old' }));
      // An older svc cached a 404 as a final unknown.
      d.file('j.jsonl.statuses.ndjson', `${JSON.stringify({ messageId: 'm-old', status: 'unknown', raw: null, errorCode: null, errorMessage: 'gone', queuedAt: null, sentAt: null, deliveredAt: null, notFound: true })}\n`);
      const agent = new MockAgent();
      agent.disableNetConnect();
      const pool = agent.get(MOCK_ORIGIN);
      pool.intercept({ path: '/api/v1/messages/m-late', method: 'GET' }).reply(404, { message: 'No such message', title: 'Not found' });
      pool.intercept({ path: '/api/v1/messages/m-old', method: 'GET' }).reply(200, { messageId: 'm-old', status: 'delivered' }).persist();
      pool.intercept({ path: '/api/v1/messages/m-late', method: 'GET' }).reply(200, { messageId: 'm-late', status: 'delivered' });
      const options = { env: { ...MOCK_ENV, SVC_DATA_DIR: join(d.dir, 'data') }, dispatcher: agent };
      const first = await runCli(['send', 'report', '--journal', journal, '--json'], options);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain('1 message not known to the service (404): counted unknown for this report, not cached, read again next time');
      const report = JSON.parse(first.stdout) as { statuses: Record<string, number>; final: boolean; reads: number };
      expect(report.statuses).toMatchObject({ delivered: 1, unknown: 1 });
      expect(report.final).toBe(false);
      expect(report.reads).toBe(2);
      expect(readFileSync(`${journal}.statuses.ndjson`, 'utf8')).not.toContain('"messageId":"m-late"');
      const second = await runCli(['send', 'report', '--journal', journal, '--json'], options);
      expect(second.code, second.stderr).toBe(0);
      const again = JSON.parse(second.stdout) as { statuses: Record<string, number>; final: boolean; reads: number };
      expect(again.statuses).toMatchObject({ delivered: 2, unknown: 0 });
      expect(again.final).toBe(true);
      expect(again.reads).toBe(1);
      await agent.close();
    } finally {
      d.cleanup();
    }
  });

  it('counts a journal once when it is given twice, under another spelling or through a link, and says so', async () => {
    const d = tempDir();
    try {
      const journal = d.file('a.jsonl', header(2) + launch(1, '+14155550001') + result(1, '+14155550001', 'rejected', { error: { message: 'bad', status: 400 } }));
      symlinkSync(journal, join(d.dir, 'link.jsonl'));
      const spellings = [join(d.dir, '.', 'a.jsonl').replace('/a.jsonl', '/./a.jsonl'), `${d.dir}//a.jsonl`, join(d.dir, 'link.jsonl'), journal];
      const run = await runCli(['send', 'report', '--journal', journal, ...spellings.flatMap((path) => ['--journal', path]), '--json'], { env: MOCK_ENV });
      expect(run.code, run.stderr).toBe(0);
      const report = JSON.parse(run.stdout) as { journals: { path: string }[]; total: Record<string, number> };
      expect(report.journals.map((j) => j.path)).toEqual([journal]);
      expect(report.total).toEqual({ recipients: 2, accepted: 0, rejected: 1, unknown: 0, notYetSent: 1, excluded: 0, optedOut: 0, zoneUnknown: 0 });
      for (const path of spellings.slice(0, 3)) expect(run.stderr).toContain(`--journal ${path} is the same file as --journal ${journal}: counted once, the duplicate is ignored`);
      expect(run.stderr).toContain(`--journal ${journal} is given twice: counted once`);
    } finally {
      d.cleanup();
    }
  });

  it('names the shards of a send with no journal given, in --json and the text; the totals are of the shards given', async () => {
    const d = tempDir();
    try {
      const one = d.file('s1.jsonl', header(2, { k: 1, n: 4 }) + launch(1, '+14155550001') + result(1, '+14155550001', 'rejected', { error: { message: 'bad', status: 400 } }));
      const two = d.file('s2.jsonl', header(3, { k: 2, n: 4 }) + launch(1, '+14155550002') + result(1, '+14155550002', 'rejected', { error: { message: 'bad', status: 400 } }));
      const json = await runCli(['send', 'report', '--journal', one, '--journal', two, '--json'], { env: MOCK_ENV });
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as { runs: number; missingShards: number[] | null; total: Record<string, number> };
      expect(report.runs).toBe(1);
      expect(report.missingShards).toEqual([3, 4]);
      expect(report.total['recipients']).toBe(5);
      expect(json.stderr).toContain('shards 3/4, 4/4 of this send are missing (no journal given): the totals are of the shards given');
      const text = await runCli(['send', 'report', '--journal', two, '--journal', one], { env: MOCK_ENV });
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('Shards missing: 3/4, 4/4 (no journal given): the counts are of the 2 shards given.');
      // Every shard given: nothing missing, nothing said.
      const all = [1, 2, 3, 4].map((k) => d.file(`all-${k}.jsonl`, header(1, { k, n: 4 })));
      const whole = await runCli(['send', 'report', ...all.flatMap((path) => ['--journal', path]), '--json'], { env: MOCK_ENV });
      expect(whole.code, whole.stderr).toBe(0);
      expect((JSON.parse(whole.stdout) as { missingShards: number[] }).missingShards).toEqual([]);
      expect(whole.stderr).toBe('');
    } finally {
      d.cleanup();
    }
  });

  it('warns that journals of unrelated runs (another list, another shard count) are not the shards of one send', async () => {
    const d = tempDir();
    try {
      const one = d.file('s1.jsonl', header(2, { k: 1, n: 2 }));
      // Shard 2/2 of a send to another list (its recipients digest differs), and a shard of a 3-way send.
      const otherList = d.file(
        'other.jsonl',
        sealRecord({ journal: 'svc-send', version: 2, run: { from: FROM, body: 'sha256:00', recipients: 'sha256:22', recipientCount: 2, media: [] }, created: '2026-01-01T00:00:00Z', svc: '0.1.0', shard: { k: 2, n: 2 }, own: { recipients: 2, excluded: 0 } }),
      );
      const otherN = d.file('three.jsonl', header(2, { k: 2, n: 3 }));
      const run = await runCli(['send', 'report', '--journal', one, '--journal', otherList, '--journal', otherN, '--json'], { env: MOCK_ENV });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain('these journals are of unrelated runs, not the shards of one send:');
      expect(run.stderr).toContain(`${otherList} (another recipients list)`);
      expect(run.stderr).toContain(`${otherN} (3 shards, not 2)`);
      const report = JSON.parse(run.stdout) as { runs: number; missingShards: number[] | null };
      expect(report.runs).toBe(3);
      expect(report.missingShards).toBeNull();
      const text = await runCli(['send', 'report', '--journal', one, '--journal', otherN], { env: MOCK_ENV });
      expect(text.stdout).toContain('These journals are of 2 unrelated runs, not the shards of one send: the total adds them up.');
    } finally {
      d.cleanup();
    }
  });

  it('reads a journal written before messageIds: a request to several recipients names the first one\'s id only', async () => {
    const d = tempDir();
    try {
      const to = ['+14155550001', '+14155550002'];
      const journal = d.file('old.jsonl', header(2) + sealRecord({ type: 'launch', seq: 1, to }) + sealRecord({ type: 'result', seq: 1, to, outcome: 'accepted', messageId: 'm1', status: 'queued', at: '2026-01-01T00:00:01Z' }));
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent.get(MOCK_ORIGIN).intercept({ path: '/api/v1/messages/m1', method: 'GET' }).reply(200, { messageId: 'm1', status: 'delivered' });
      const run = await runCli(['send', 'report', '--journal', journal, '-o', 'ndjson', '--fields', 'to,outcome,messageId,status'], { env: { ...MOCK_ENV, SVC_DATA_DIR: join(d.dir, 'data') }, dispatcher: agent });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe('{"to":"+14155550001","outcome":"accepted","messageId":"m1","status":"delivered"}\n{"to":"+14155550002","outcome":"accepted","messageId":null,"status":"unknown"}\n');
      await agent.close();
    } finally {
      d.cleanup();
    }
  });

  it('names the recipients not yet sent in owed, in --json, -o ndjson and the text alike, when --to-file gives the list', async () => {
    const d = tempDir();
    try {
      const list = ['+14155550001', '+14155550002', '+14155550003', '+14155550004'];
      const file = d.file('list.txt', `${list.join('\n')}\n`);
      const digest = `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
      const journal = d.file(
        'j.jsonl',
        sealRecord({ journal: 'svc-send', version: 2, run: { from: FROM, body: 'sha256:00', recipients: digest, recipientCount: 4, media: [] }, created: '2026-01-01T00:00:00Z', svc: '0.1.0', own: { recipients: 4, excluded: 0 } }) +
          launch(1, list[0]!) + result(1, list[0]!, 'accepted', { messageId: 'm1' }) + launch(2, list[1]!) + result(2, list[1]!, 'rejected', { error: { message: 'bad number', status: 400 } }),
      );
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent.get(MOCK_ORIGIN).intercept({ path: '/api/v1/messages/m1', method: 'GET' }).reply(200, { messageId: 'm1', status: 'delivered' }).persist();
      const options = { env: { ...MOCK_ENV, SVC_DATA_DIR: join(d.dir, 'data') }, dispatcher: agent };
      const json = await runCli(['send', 'report', '--journal', journal, '--to-file', file, '--json'], options);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as { total: Record<string, number>; owed: { to: string; state: string }[] };
      expect(report.total['notYetSent']).toBe(2);
      expect(report.owed.map((o) => [o.to, o.state])).toEqual([[list[1], 'rejected'], [list[2], 'not yet sent'], [list[3], 'not yet sent']]);
      const text = await runCli(['send', 'report', '--journal', journal, '--to-file', file], options);
      expect(text.stdout).toContain('Recipients still owed: 3 (1 rejected, 0 unknown, 2 not yet sent)');
      expect(text.stdout).toContain(`  ${list[2]}  not yet sent\n  ${list[3]}  not yet sent\n`);
      const unnamed = await runCli(['send', 'report', '--journal', journal], options);
      expect(unnamed.stdout).toContain('  and 2 not yet sent, not named here (give --to-file');
      // One line per recipient: those not yet sent too, with the state --json gives them.
      const ndjson = await runCli(['send', 'report', '--journal', journal, '--to-file', file, '-o', 'ndjson'], options);
      expect(ndjson.code, ndjson.stderr).toBe(0);
      const lines = ndjson.stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(lines.map((line) => [line['to'], line['outcome'], line['status']])).toEqual([
        [list[0], 'accepted', 'delivered'],
        [list[1], 'rejected', null],
        [list[2], 'not yet sent', null],
        [list[3], 'not yet sent', null],
      ]);
      expect(lines[2]).toEqual({ to: list[2], journal, shard: null, outcome: 'not yet sent', messageId: null, status: null, errorCode: null, errorMessage: null, answeredAt: null, deliveredAt: null });
      await agent.close();
    } finally {
      d.cleanup();
    }
  });

  it('with the send\'s --exclude-file, names the not-yet-sent of a journal with exclusions, and refuses another list', async () => {
    const d = tempDir();
    try {
      const list = ['+14155550001', '+14155550002', '+14155550003', '+14155550004', '+14155550005'];
      const file = d.file('list.txt', `${list.join('\n')}\n`);
      const digest = `sha256:${createHash('sha256').update(readFileSync(file)).digest('hex')}`;
      // Written as a person would: the same set as the send's exclude list.
      const optout = d.file('optout.txt', '+1 (415) 555-0003\n');
      const excludeDigest = `sha256:${createHash('sha256').update(list[2]!).digest('hex')}`;
      const journal = d.file(
        'j.jsonl',
        sealRecord({
          journal: 'svc-send',
          version: 2,
          run: { from: FROM, body: 'sha256:00', recipients: digest, recipientCount: 5, media: [] },
          created: '2026-01-01T00:00:00Z',
          svc: '0.1.0',
          own: { recipients: 4, excluded: 1 },
          exclude: { digest: excludeDigest, numbers: 1 },
        }) + launch(1, list[0]!) + result(1, list[0]!, 'accepted', { messageId: 'm1' }),
      );
      const agent = new MockAgent();
      agent.disableNetConnect();
      agent.get(MOCK_ORIGIN).intercept({ path: '/api/v1/messages/m1', method: 'GET' }).reply(200, { messageId: 'm1', status: 'delivered' }).persist();
      const options = { env: { ...MOCK_ENV, SVC_DATA_DIR: join(d.dir, 'data') }, dispatcher: agent };
      const unnamed = await runCli(['send', 'report', '--journal', journal, '--to-file', file], options);
      expect(unnamed.code, unnamed.stderr).toBe(0);
      expect(unnamed.stdout).toContain('  and 3 not yet sent, not named here (give --to-file and --exclude-file, the lists sent with, to name them)');
      const json = await runCli(['send', 'report', '--journal', journal, '--to-file', file, '--exclude-file', optout, '--json'], options);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout) as { total: Record<string, number>; owed: { to: string; state: string }[] };
      expect(report.total).toEqual({ recipients: 5, accepted: 1, rejected: 0, unknown: 0, notYetSent: 3, excluded: 1, optedOut: 0, zoneUnknown: 0 });
      expect(report.owed.map((o) => [o.to, o.state])).toEqual([[list[1], 'not yet sent'], [list[3], 'not yet sent'], [list[4], 'not yet sent']]);

      const other = d.file('other.txt', `${list[3]}\n`);
      const wrong = await runCli(['send', 'report', '--journal', journal, '--to-file', file, '--exclude-file', other], options);
      expect(wrong.code).toBe(2);
      expect(wrong.stderr).toContain(`--exclude-file ${other} is not the exclude list ${journal} was last sent with`);
      const alone = await runCli(['send', 'report', '--journal', journal, '--exclude-file', optout], options);
      expect(alone.code).toBe(2);
      expect(alone.stderr).toContain('--exclude-file goes with --to-file');
      const overwrite = await runCli(['send', 'report', '--journal', journal, '--to-file', file, '--exclude-file', optout, '--failed-to', optout], options);
      expect(overwrite.code).toBe(2);
      expect(overwrite.stderr).toContain('is the same file as --exclude-file');
      expect(readFileSync(optout, 'utf8')).toBe('+1 (415) 555-0003\n');
      await agent.close();
    } finally {
      d.cleanup();
    }
  });

  it('--fields selects from the report in --json, from each recipient in ndjson, and refuses an unknown one', async () => {
    const journal = join(work, 'fields.jsonl');
    writeFileSync(journal, header(2) + launch(1, '+14155550001') + result(1, '+14155550001', 'accepted', { messageId: 'm1' }) + launch(2, '+14155550002') + result(2, '+14155550002', 'rejected', { error: { message: 'bad number', status: 400 } }));
    const agent = new MockAgent();
    agent.disableNetConnect();
    agent
      .get(MOCK_ORIGIN)
      .intercept({ path: '/api/v1/messages/m1', method: 'GET' })
      .reply(200, { messageId: 'm1', status: 'delivered', queuedAt: '2026-01-01T00:00:00Z', deliveredAt: '2026-01-01T00:00:02Z' })
      .persist();
    const options = { env: { ...MOCK_ENV, SVC_DATA_DIR: join(work, 'd-fields') }, dispatcher: agent };
    const json = await runCli(['send', 'report', '--journal', journal, '--json', '--fields', 'total.accepted,statuses.delivered'], options);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ total: { accepted: 1 }, statuses: { delivered: 1 } });
    const ndjson = await runCli(['send', 'report', '--journal', journal, '-o', 'ndjson', '--fields', 'to,outcome,status'], options);
    expect(ndjson.stdout).toBe('{"to":"+14155550001","outcome":"accepted","status":"delivered"}\n{"to":"+14155550002","outcome":"rejected","status":null}\n');
    const bad = await runCli(['send', 'report', '--journal', journal, '-o', 'ndjson', '--fields', 'outcomes'], options);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"outcomes" is not a field[\s\S]*Available: to, journal, shard, outcome/);
    expect(bad.stdout).toBe('');
    await agent.close();
  });

  it('--failed-to refuses to write over a journal, its statuses cache or the --to-file, however it is spelled (exit 2)', async () => {
    const d = tempDir();
    try {
      const journal = d.file('j.jsonl', header(1) + launch(1, '+14155550001') + result(1, '+14155550001', 'rejected', { error: { message: 'bad', status: 400 } }));
      const list = d.file('rc.csv', 'phone,name\n+14155550001,A\n');
      symlinkSync(list, join(d.dir, 'link.csv'));
      const before = [readFileSync(journal, 'utf8'), readFileSync(list, 'utf8')];
      const cases: [string, RegExp][] = [
        [join(d.dir, '.', 'rc.csv'), /is the same file as --to-file/],
        [join(d.dir, 'link.csv'), /is the same file as --to-file/],
        [join(d.dir, 'sub', '..', 'j.jsonl'), /is the same file as --journal/],
        [`${journal}.statuses.ndjson`, /is the same file as the statuses cache of --journal/],
      ];
      for (const [target, message] of cases) {
        const run = await runCli(['send', 'report', '--journal', journal, '--failed-to', target, '--to-file', list], { env: MOCK_ENV });
        expect(run.code, run.stderr).toBe(2);
        expect(run.stderr).toMatch(message);
        expect(run.stderr).toContain(target);
      }
      expect([readFileSync(journal, 'utf8'), readFileSync(list, 'utf8')]).toEqual(before);
      expect(existsSync(`${journal}.statuses.ndjson`)).toBe(false);
    } finally {
      d.cleanup();
    }
  });

  it('refuses a damaged journal with its line, and a missing one (exit 2)', async () => {
    const bad = join(work, 'bad.jsonl');
    const damagedLaunch = launch(1, '+14155550001').replace('"seq":1', '"seq":7');
    writeFileSync(bad, header(2) + damagedLaunch + launch(2, '+14155550002'));
    const damaged = await runCli(['send', 'report', '--journal', bad], { env: MOCK_ENV });
    expect(damaged.code).toBe(2);
    expect(damaged.stderr).toContain(`${bad}:2: a damaged record`);
    // Last, with nothing sound after it, the same line may be a send's record being written (the
    // report takes no lock): it is not counted, and the report goes on.
    const last = join(work, 'bad-last.jsonl');
    writeFileSync(last, header(2) + launch(2, '+14155550002') + damagedLaunch);
    const partial = await runCli(['send', 'report', '--journal', last, '--json'], { env: MOCK_ENV });
    expect(partial.code, partial.stderr).toBe(0);
    expect((JSON.parse(partial.stdout) as { total: Record<string, number> }).total).toMatchObject({ recipients: 2, accepted: 0, unknown: 1, notYetSent: 1 });
    const missing = await runCli(['send', 'report', '--journal', join(work, 'none.jsonl')], { env: MOCK_ENV });
    expect(missing.code).toBe(2);
    expect((await runCli(['send', 'report'], { env: MOCK_ENV })).code).toBe(2);
    const badTimeout = await runCli(['send', 'report', '--journal', bad, '--timeout', 'soon'], { env: MOCK_ENV });
    expect(badTimeout.code).toBe(2);
    expect(badTimeout.stderr).toContain('soon');
  });
});

describe('a journal with throttled requests', () => {
  it('counts a recipient refused unprocessed (429) as not yet sent, not as rejected', async () => {
    const { JournalWriter } = await import('../../../src/send/journal/writer.js');
    const { readReportJournal } = await import('../../../src/send/report/data.js');
    const path = join(work, 'throttled.jsonl');
    const run = { from: FROM, body: 'sha256:ab', recipients: 'sha256:cd', recipientCount: 3, media: [] };
    const journal = JournalWriter.create(path, run);
    const [a, b, c] = journal.launch([{ to: ['+15557770001'] }, { to: ['+15557770002'] }, { to: ['+15557770003'] }]);
    journal.result(a!, { to: ['+15557770001'], outcome: 'accepted', messageId: 'm-1' });
    journal.throttled(b!, { to: ['+15557770002'], outcome: 'rejected', error: { message: 'slow down', status: 429 } });
    journal.result(c!, { to: ['+15557770003'], outcome: 'rejected', error: { message: 'bad', status: 400 } });
    await journal.close();
    const into: Parameters<typeof readReportJournal>[2] = [];
    const report = await readReportJournal(path, 0, into);
    expect(report.counts).toMatchObject({ recipients: 3, accepted: 1, rejected: 1, unknown: 0, notYetSent: 1 });
    expect(into.map((r) => r.to).sort()).toEqual(['+15557770001', '+15557770003']);
  });
});
