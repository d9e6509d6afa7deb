import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createTenant, enc, obj, provisionAndWait, startHarness, type Harness } from '../../sandbox/helpers.js';
import { numbers, tempDir } from './helpers.js';

// A bulk send against the sandbox throttling like a service: an account-wide
// --rate-limit below the number's own settings.rateLimit, so that the CLI, pacing itself at the
// number's rate it read, meets the account's limit (when the machine is fast enough to) and must
// pause and send again. Count
// invariants only (no timing): everyone accepted once, nobody rejected, nobody twice (the
// sandbox's own count of stored messages equals the recipients).

const FROM = '+15557770100';
let h: Harness | undefined;
let d: ReturnType<typeof tempDir> | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
  d?.cleanup();
  d = undefined;
});

describe('bulk send against the rate-limited sandbox', () => {
  it('5,000 recipients: 0 rejected, 0 duplicates, everyone accepted once', async () => {
    h = await startHarness({ rateLimit: 1000 });
    const tenant = await createTenant(h);
    expect((await provisionAndWait(h, tenant, [FROM]))['status']).toBe('Completed');
    expect((await h.api('PUT', `/phone-numbers/${enc(FROM)}`, { settings: { rateLimit: 1500 } })).status).toBe(204);
    d = tempDir();
    const recipients = numbers(5000, 15552000000);
    const file = d.file('to.txt', `${recipients.join('\n')}\n`);
    const journal = `${d.dir}/run.jsonl`;
    const result = await runCli(
      ['send', '--from', FROM, '--to-file', file, '--body', 'Hello', '--async', '--concurrency', '16', '--journal', journal, '-o', 'ndjson', '--yes'],
      { env: { SVC_BASE_URL: h.sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox' } },
    );
    expect(result.code, result.stderr).toBe(0);
    const elements = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { to: string[]; messageId?: string; error?: unknown });
    expect(elements.filter((e) => e.error !== undefined)).toEqual([]);
    const accepted = elements.flatMap((e) => e.to);
    expect(accepted).toHaveLength(5000);
    expect(new Set(accepted).size).toBe(5000);
    const store = (obj(await h.api('GET', '/health'))['entries'] as { name: string; data?: { messages?: number } }[]).find((e) => e.name === 'store');
    expect(store?.data?.messages).toBe(5000);
    // Whether the account's limit was met depends on how fast this machine sends (a loaded one
    // may never reach it), so it is not asserted; pace.test.ts throttles deterministically.
  }, 180_000);
});
