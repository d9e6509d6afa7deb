import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/cli.js';
import { signatureVectors } from '../../helpers/vectors.js';
import { signBody } from '../../../src/domain/signature.js';

const vectors = signatureVectors;

const dir = mkdtempSync(join(tmpdir(), 'svc-webhook-cmd-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function bodyFile(name: string, bytes: Buffer | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const secret = 'whsec-command-test';

describe('svc webhook sign', () => {
  for (const vector of vectors) {
    it(`prints only the signature of ${vector.name}, from a file of its bytes`, async () => {
      const file = bodyFile(`${vector.name}.json`, Buffer.from(vector.bodyUtf8Hex, 'hex'));
      const result = await runCli(['webhook', 'sign', '--body-file', file], { env: { SVC_WEBHOOK_SECRET: vector.secret } });
      expect(result).toEqual({ code: 0, stdout: `${vector.xSvcSignature}\n`, stderr: '' });
    });
  }

  it('signs the body on standard input', async () => {
    const vector = vectors.find((entry) => entry.name === 'json-non-ascii-body');
    if (vector === undefined) throw new Error('fixture missing');
    const result = await runCli(['webhook', 'sign'], { env: { SVC_WEBHOOK_SECRET: vector.secret }, stdin: vector.body });
    expect(result).toEqual({ code: 0, stdout: `${vector.xSvcSignature}\n`, stderr: '' });
  });

  it('signs bytes that are not UTF-8 exactly as stored', async () => {
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x7d, 0x0d, 0x0a]);
    const file = bodyFile('binary.bin', bytes);
    const result = await runCli(['webhook', 'sign', '--body-file', file], { env: { SVC_WEBHOOK_SECRET: secret } });
    expect(result.stdout).toBe(`${signBody(bytes, secret)}\n`);
  });

  it('takes the secret from the variable --secret-env names', async () => {
    const file = bodyFile('named.json', '{"a":1}');
    const result = await runCli(['webhook', 'sign', '--secret-env', 'TENANT_A_SECRET', '--body-file', file], {
      env: { TENANT_A_SECRET: secret, SVC_WEBHOOK_SECRET: 'not-this-one' },
    });
    expect(result.stdout).toBe(`${signBody('{"a":1}', secret)}\n`);
  });

  it('gives one JSON document with --json', async () => {
    const file = bodyFile('json.json', '{}');
    const result = await runCli(['webhook', 'sign', '--body-file', file, '--json'], { env: { SVC_WEBHOOK_SECRET: secret } });
    expect(JSON.parse(result.stdout)).toEqual({ signature: signBody('{}', secret) });
  });

  it('is a usage error (exit 2) when the variable is unset, naming it and nothing else', async () => {
    const result = await runCli(['webhook', 'sign'], { env: {}, stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/SVC_WEBHOOK_SECRET is not set/);
    const named = await runCli(['webhook', 'sign', '--secret-env', 'MY_SECRET'], { env: { MY_SECRET: '' }, stdin: '{}' });
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(/MY_SECRET is not set/);
  });

  it('refuses a secret typed where the variable name belongs, without echoing it', async () => {
    const result = await runCli(['webhook', 'sign', '--secret-env', 'whsec-Abc/123+xyz='], { env: {}, stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/name of an environment variable/);
    expect(result.stderr).not.toContain('whsec-Abc');
  });

  it('signs with one secret only', async () => {
    const result = await runCli(['webhook', 'sign', '--secret-env', 'A,B'], { env: { A: 'a', B: 'b' }, stdin: '{}' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/one variable/);
  });

  it('names a missing body file (exit 2)', async () => {
    const missing = join(dir, 'nope.json');
    const result = await runCli(['webhook', 'sign', '--body-file', missing], { env: { SVC_WEBHOOK_SECRET: secret } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${missing}: no such file`);
  });

  it('refuses a blank --body-file (exit 2), naming the flag', async () => {
    const result = await runCli(['webhook', 'sign', '--body-file', ' '], { env: { SVC_WEBHOOK_SECRET: secret } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--body-file needs a file name (or - for standard input), not a blank " "');
  });

  it('does not wait on a terminal for a body', async () => {
    const result = await runCli(['webhook', 'sign'], { env: { SVC_WEBHOOK_SECRET: secret }, tty: true });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--body-file FILE or pipe it/);
  });
});

describe('svc webhook verify', () => {
  for (const vector of vectors) {
    it(`prints valid for ${vector.name}`, async () => {
      const file = bodyFile(`verify-${vector.name}.json`, Buffer.from(vector.bodyUtf8Hex, 'hex'));
      const result = await runCli(['webhook', 'verify', '--signature', vector.xSvcSignature, '--body-file', file], {
        env: { SVC_WEBHOOK_SECRET: vector.secret },
      });
      expect(result).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
    });
  }

  it('prints invalid and exits 1 for a tampered body, with the reason on stderr', async () => {
    const signature = signBody('{"status":"delivered"}', secret);
    const result = await runCli(['webhook', 'verify', '--signature', signature], {
      env: { SVC_WEBHOOK_SECRET: secret },
      stdin: '{"status":"failed"}',
    });
    expect(result).toEqual({ code: 1, stdout: 'invalid\n', stderr: expect.stringMatching(/does not match/) });
  });

  it('prints invalid for a wrong secret, a truncated signature and re-encoded JSON', async () => {
    const body = '{ "status": "delivered" }';
    const signature = signBody(body, secret);
    const cases: Array<[string, string, string]> = [
      [signature, body, 'whsec-wrong'],
      [signature.slice(0, 30), body, secret],
      [signature, JSON.stringify(JSON.parse(body)), secret],
    ];
    for (const [given, sent, key] of cases) {
      const result = await runCli(['webhook', 'verify', '--signature', given], { env: { SVC_WEBHOOK_SECRET: key }, stdin: sent });
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('invalid\n');
    }
  });

  it('checks each secret of a rotation list and says when the previous one matched', async () => {
    const body = '{"orderId":5}';
    const env = { NEW_SECRET: 'whsec-new', OLD_SECRET: 'whsec-old' };
    const argv = ['webhook', 'verify', '--secret-env', 'NEW_SECRET,OLD_SECRET', '--signature'];
    const byOld = await runCli([...argv, signBody(body, 'whsec-old')], { env, stdin: body });
    expect(byOld).toEqual({ code: 0, stdout: 'valid\n', stderr: expect.stringMatching(/matched secret 2 of 2/) });
    const byNew = await runCli([...argv, signBody(body, 'whsec-new')], { env, stdin: body });
    expect(byNew).toEqual({ code: 0, stdout: 'valid\n', stderr: '' });
    const byOther = await runCli([...argv, signBody(body, 'whsec-other')], { env, stdin: body });
    expect(byOther.code).toBe(1);
  });

  it('gives one JSON document with --json, keeping the exit code', async () => {
    const body = '{}';
    const valid = await runCli(['webhook', 'verify', '--json', '--signature', signBody(body, secret)], {
      env: { SVC_WEBHOOK_SECRET: secret },
      stdin: body,
    });
    expect(valid.code).toBe(0);
    expect(JSON.parse(valid.stdout)).toEqual({ valid: true, secretIndex: 0 });
    const invalid = await runCli(['webhook', 'verify', '--json', '--signature', 'abc'], { env: { SVC_WEBHOOK_SECRET: secret }, stdin: body });
    expect(invalid.code).toBe(1);
    expect(JSON.parse(invalid.stdout)).toEqual({ valid: false, reason: 'malformed' });
  });

  it('needs --signature and a secret (exit 2)', async () => {
    expect((await runCli(['webhook', 'verify'], { env: { SVC_WEBHOOK_SECRET: secret }, stdin: '{}' })).code).toBe(2);
    const noSecret = await runCli(['webhook', 'verify', '--signature', signBody('{}', secret)], { env: {}, stdin: '{}' });
    expect(noSecret.code).toBe(2);
    expect(noSecret.stdout).toBe('');
  });

  it('never prints the secret', async () => {
    const results = await Promise.all([
      runCli(['webhook', 'verify', '--signature', 'abc', '--debug'], { env: { SVC_WEBHOOK_SECRET: secret }, stdin: '{}' }),
      runCli(['webhook', 'sign', '--debug'], { env: { SVC_WEBHOOK_SECRET: secret }, stdin: '{}' }),
    ]);
    for (const result of results) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
  });
});
