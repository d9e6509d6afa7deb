import { afterEach, describe, expect, it } from 'vitest';
import { startPty } from '../../output/pty.js';
import { BIN, spawnCli } from '../../helpers/spawn.js';
import { expressReceiver, reserialisingReceiver, startReceiver, type Receiver } from '../../webhooks/prove/receivers.js';

// The built svc against a live receiver: as a script runs it (piped, --json, exit codes), and
// on a real terminal at three widths.

const SECRET = 'e2e-prove-secret-5f3a9c';

const receivers: Receiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

describe('svc webhook prove, built', () => {
  it('--json against a correct receiver: exit 0, one document, 19 requests', async () => {
    const r = await startReceiver(expressReceiver({ secrets: [SECRET] }));
    receivers.push(r);
    const result = await spawnCli(['webhook', 'prove', r.url, '--json'], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeoutMs: 60_000 });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { passed: boolean; requests: number };
    expect(report).toMatchObject({ passed: true, requests: 19 });
    expect(r.requests).toHaveLength(19);
  }, 60_000);

  it('an unreachable receiver with --json: exit 1, the error as JSON on stderr', async () => {
    const gone = await startReceiver(() => ({ status: 200 }));
    await gone.close();
    const result = await spawnCli(['webhook', 'prove', gone.url, '--json'], { env: { SVC_WEBHOOK_SECRET: SECRET }, timeoutMs: 60_000 });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr)).toMatchObject({ error: { message: expect.stringMatching(/^cannot reach http:\/\/127\.0\.0\.1:\d+\/webhooks\/svc/) } });
  }, 60_000);

  for (const cols of [40, 80, 120]) {
    it(`on a ${cols}-column terminal: every line fits, failures and the summary shown, exit 7`, async () => {
      const r = await startReceiver(reserialisingReceiver({ secrets: [SECRET] }));
      receivers.push(r);
      const run = startPty(process.execPath, [BIN, 'webhook', 'prove', r.url], {
        env: { PATH: process.env['PATH'], HOME: process.env['HOME'], TERM: 'xterm', SVC_PAGER: 'cat', SVC_WEBHOOK_SECRET: SECRET },
        cols,
        rows: 200,
      });
      expect(await run.exited).toBe(7);
      // The progress spinner (stderr, same terminal) leaves its frames before the report.
      const text = run.text().slice(run.text().search(/Checked\s/));
      expect(run.text()).toMatch(/checking 127\.0\.0\.1:\d+: \d+\/17 /);
      for (const line of text.split('\n')) expect([...line.trimEnd()].length).toBeLessThanOrEqual(cols);
      expect(text).toContain('What to fix');
      expect(text.replace(/\s+/g, ' ')).toContain('2 of 13 required checks failed (re-serialised: spaces, re-serialised: escapes)');
      expect(text).not.toContain(SECRET);
      await run.close();
    }, 60_000);
  }
});
