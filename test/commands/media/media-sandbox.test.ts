import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createTenant, provisionAndWait, startHarness, type Harness } from '../../sandbox/helpers.js';

// `svc media upload --json` against the live sandbox: the first answer shape has no expiry
// field, and the expiry shown is the one its link's signed token carries.

const NUMBER = '+14155550410';
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
let h: Harness;
let tenantId: string;
const dir = mkdtempSync(join(tmpdir(), 'svc-media-live-'));
beforeAll(async () => {
  h = await startHarness();
  tenantId = await createTenant(h);
  await provisionAndWait(h, tenantId, [NUMBER]);
  writeFileSync(join(dir, 'photo.png'), PNG);
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('svc media upload against the sandbox', () => {
  it.each(['a', 'b'])('shape %s: expiresAt is the link\'s own expiry, 99 years ahead', async (shape) => {
    const env = { SVC_BASE_URL: h.sandbox.url, SVC_USERNAME: 'sandbox@example.com', SVC_PASSWORD: 'sandbox' };
    const result = await runCli(['media', 'upload', join(dir, 'photo.png'), '--number', NUMBER, '--tenant', tenantId, '--shape', shape, '--json'], { env });
    expect(result.code, result.stderr).toBe(0);
    const answer = JSON.parse(result.stdout) as { url: string; expiresAt: string | null };
    // The link's token says it in whole seconds; shape B's own field may carry milliseconds.
    const linkSeconds = Number(new URL(answer.url).searchParams.get('expires'));
    expect(answer.expiresAt).not.toBeNull();
    expect(Math.floor(Date.parse(answer.expiresAt!) / 1000)).toBe(linkSeconds);
    expect(new Date(answer.expiresAt!).getUTCFullYear() - new Date().getUTCFullYear()).toBe(99);
  });
});
