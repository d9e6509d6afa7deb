import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli, scriptedPrompter, tempConfigDir, type RunOptions } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../helpers/mock-api.js';
import { memorySecretStore } from '../config/memory-secrets.js';

// Prompts and confirmations in-process: on a (pretended) terminal they ask, and they are never
// shown without a terminal, with CI set, or with --json, where the error names the flag instead.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const OTHER_TENANT = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const env = { ...MOCK_ENV, SVC_TENANT: TENANT };

// A picture for --media-file and media upload, which need a tenant to go up for.
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(64, 7)]);
const mediaDir = mkdtempSync(join(tmpdir(), 'svc-interactive-'));
const PHOTO = join(mediaDir, 'photo.png');
writeFileSync(PHOTO, PNG);
afterAll(() => rmSync(mediaDir, { recursive: true, force: true }));

let mock: MockApi | undefined;
let cleanups: (() => void)[] = [];
afterEach(async () => {
  await mock?.agent.close();
  mock = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A prompter that answers from a script (select included) and records every question. */
function answering(answers: Record<string, string | boolean>): ReturnType<typeof scriptedPrompter> {
  return scriptedPrompter(answers, { select: true });
}

/** Every way of not being at a terminal: the prompter fails the test if it is asked anything. */
const NOT_A_TERMINAL: [string, RunOptions, string[]][] = [
  ['stdin is not a terminal', { tty: { stdin: false, stdout: true, stderr: true } }, []],
  ['stdout is not a terminal', { tty: { stdin: true, stdout: false, stderr: true } }, []],
  ['CI is set', { tty: true, env: { CI: 'true' } }, []],
  ['--json is given', { tty: true }, ['--json']],
];

const PROMPTS: { name: string; argv: string[]; names: RegExp; env?: Record<string, string> }[] = [
  { name: 'number provision without a tenant', argv: ['number', 'provision', '+15551234567', '--type', 'SMS', '--class', 'P2P'], names: /--tenant GUID or set SVC_TENANT/, env: { SVC_TENANT: '' } },
  { name: 'number unprovision without a tenant', argv: ['number', 'unprovision', '+15551234567', '--yes'], names: /--tenant GUID or set SVC_TENANT/, env: { SVC_TENANT: '' } },
  { name: 'send without a body', argv: ['send', '--from', '+15551230000', '--to', '+15557650001'], names: /--body TEXT/ },
  { name: 'tenant get without ID or a default tenant', argv: ['tenant', 'get'], names: /The tenant ID is missing.*give it after `svc tenant get` or set SVC_TENANT/, env: { SVC_TENANT: '' } },
  { name: 'tenant update without ID or a default tenant', argv: ['tenant', 'update', '--domain', 'x.example'], names: /The tenant ID is missing.*give it after `svc tenant update` or set SVC_TENANT/, env: { SVC_TENANT: '' } },
  { name: 'tenant use without ID', argv: ['tenant', 'use'], names: /ID \(tenant GUID\) is missing/ },
  { name: 'number get without NUMBER', argv: ['number', 'get'], names: /NUMBER \(E\.164 number\) is missing.*`svc number get`/ },
  { name: 'number update without NUMBER', argv: ['number', 'update', '--description', 'x'], names: /NUMBER \(E\.164 number\) is missing/ },
  { name: 'number provision without --type', argv: ['number', 'provision', '+15551234567', '--class', 'P2P'], names: /--type/ },
  { name: 'number provision without --class', argv: ['number', 'provision', '+15551234567', '--type', 'SMS'], names: /--class/ },
  { name: 'number unprovision without --yes', argv: ['number', 'unprovision', '+15551234567'], names: /release number \+15551234567 of tenant .*give --yes \(-y\)/ },
  { name: 'send without --from', argv: ['send', '--to', '+15557650001', '--body', 'hi'], names: /--from/ },
  { name: 'send without recipients', argv: ['send', '--from', '+15551230000', '--body', 'hi'], names: /--to NUMBER\.\.\. or --to-file FILE/ },
  { name: 'send --media-file without a tenant', argv: ['send', '--from', '+15551230000', '--to', '+15557650001', '--media-file', PHOTO], names: /tenant of the --media-file upload is missing.*--tenant GUID or set SVC_TENANT/, env: { SVC_TENANT: '' } },
  { name: 'media upload without a tenant', argv: ['media', 'upload', PHOTO, '--number', '+15551230000'], names: /tenant of the upload is missing.*--tenant GUID or set SVC_TENANT/, env: { SVC_TENANT: '' } },
  { name: 'a big send without --yes', argv: ['send', '--from', '+15551230000', '--to', '+15557650001', '--body', 'x'.repeat(160 * 260)], names: /send 2\d\d segments to 1 recipient from \+15551230000.*--yes/ },
];

describe('no prompt without a person at a terminal', () => {
  for (const prompt of PROMPTS) {
    it.each(NOT_A_TERMINAL)(`${prompt.name}: never asked when %s; exit 2 naming the flag`, async (_why, options, extra) => {
      mock = createMockApi();
      const api = mock;
      const prompter = answering({});
      const result = await runCli([...prompt.argv, ...extra], { ...options, env: { ...env, ...prompt.env, ...options.env }, prompter, dispatcher: api.agent });
      expect(result.code).toBe(2);
      expect(prompter.asked).toEqual([]);
      expect(api.seen).toEqual([]);
      const message = extra.includes('--json') ? (JSON.parse(result.stderr) as { error: { message: string } }).error.message : result.stderr;
      expect(message).toMatch(prompt.names);
    });
  }

  it('profile remove needs --yes without a terminal, and names the profile', async () => {
    const config = tempConfigDir();
    cleanups.push(config.cleanup);
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ profiles: { old: { baseUrl: MOCK_ORIGIN, username: 'o@example.com', password: 'pw' } } }));
    for (const [, options, extra] of NOT_A_TERMINAL) {
      const prompter = answering({});
      const result = await runCli(['profile', 'remove', 'old', ...extra], { ...options, env: { SVC_CONFIG_DIR: config.dir, ...options.env }, prompter });
      expect(result.code).toBe(2);
      expect(prompter.asked).toEqual([]);
      expect(result.stderr).toMatch(/remove profile \\?"old\\?" .*--yes/);
    }
  });

  it('tenant create offers nothing without a terminal, and does not change the default', async () => {
    const config = tempConfigDir();
    cleanups.push(config.cleanup);
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ activeProfile: 'work', profiles: { work: { baseUrl: MOCK_ORIGIN, username: 'w@example.com', password: 'pw-pw' } } }));
    for (const [, options, extra] of NOT_A_TERMINAL) {
      mock = createMockApi();
      const api = mock;
      api.expect('POST', 'tenants', { status: 201, body: { tenantId: TENANT } });
      const prompter = answering({});
      const result = await runCli(['tenant', 'create', ...extra], { ...options, env: { SVC_CONFIG_DIR: config.dir, ...options.env }, prompter, dispatcher: api.agent });
      expect(result.code).toBe(0);
      expect(prompter.asked).toEqual([]);
      await api.agent.close();
      mock = undefined;
    }
    expect(JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8')).profiles.work.tenant).toBeUndefined();
  });

  it('a missing positional is one clear message, never commander\'s bare one', async () => {
    for (const argv of [['profile', 'use'], ['order', 'get'], ['message', 'get'], ['number', 'loa', 'upload']]) {
      const result = await runCli(argv, { env });
      expect(result.code).toBe(2);
      expect(result.stderr).not.toContain('missing required argument');
      expect(result.stderr).toMatch(/^error: \S+ \(.*\) is missing: give it after `svc .*`/);
      expect(result.stderr).toContain('For example: svc ');
    }
  });
});

describe('asking on a terminal', () => {
  it('tenant get offers the account\'s tenants', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'tenants', { status: 200, body: [{ tenantId: TENANT, domain: 'a.example' }, { tenantId: OTHER_TENANT }] });
    api.expect('GET', `tenants/${OTHER_TENANT}`, { status: 200, body: { tenantId: OTHER_TENANT, domain: 'b.example' } });
    const prompter = answering({ 'which tenant': OTHER_TENANT });
    const result = await runCli(['tenant', 'get'], { tty: true, env: { ...env, SVC_TENANT: '' }, prompter, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('b.example');
    api.verify();
  });

  it('number get offers the active numbers', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [{ phoneNumber: '+15551230001', status: 'Active' }], total: 1 } });
    api.expect('GET', 'phone-numbers/%2B15551230001', { status: 200, body: { phoneNumber: '+15551230001', status: 'Active' } });
    const prompter = answering({ 'which number': '+15551230001' });
    const result = await runCli(['number', 'get'], { tty: true, env, prompter, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual(['Which number?']);
    api.verify();
  });

  it('number provision asks for the type and class, and the tenant among the account\'s', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'tenants', { status: 200, body: [{ tenantId: TENANT }] });
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: { orderId: 7, status: 'Pending' } });
    const prompter = answering({ 'provision type': 'SMSMMS', 'provision class': 'P2P', 'which tenant': TENANT });
    const result = await runCli(['number', 'provision', '+15551234567'], { tty: true, env: { ...MOCK_ENV }, prompter, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(api.seen[1]!.body).toMatchObject({ action: 'Provision', tenantId: TENANT, phoneNumbers: [{ number: '+15551234567', messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'P2P' } }] });
    api.verify();
  });

  it('media upload offers the account\'s tenants when none is given', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'tenants', { status: 200, body: [{ tenantId: TENANT, domain: 'a.example' }, { tenantId: OTHER_TENANT }] });
    api.expect('POST', 'media', { status: 201, body: { uri: 'https://media.test/p', fileName: 'photo.png' } }, { body: (b) => expect(b).toMatchObject({ tenantId: OTHER_TENANT, phoneNumber: '+15551230000' }) });
    const prompter = answering({ 'which tenant': OTHER_TENANT });
    const result = await runCli(['media', 'upload', PHOTO, '--number', '+15551230000', '--shape', 'a'], { tty: true, env: { ...MOCK_ENV, SVC_TENANT: '' }, prompter, dispatcher: api.agent });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual(['Which tenant?']);
    api.verify();
  });

  it('send --media-file offers the account\'s tenants when none is given, and uploads for the one chosen', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'tenants', { status: 200, body: [{ tenantId: TENANT }] });
    api.expect('POST', 'media', { status: 201, body: { uri: 'https://media.test/p', fileName: 'photo.png' } }, { body: (b) => expect(b).toMatchObject({ tenantId: TENANT }) });
    api.expect('POST', 'messages?isAsync=false', { status: 200, body: { messageId: 'm1', status: 'sent' } }, { body: (b) => expect(b).toMatchObject({ mediaUrls: ['https://media.test/p'] }) });
    const prompter = answering({ 'which tenant': TENANT });
    const result = await runCli(['send', '--from', '+15551230000', '--to', '+15557650001', '--media-file', PHOTO], { tty: true, env: { ...MOCK_ENV, SVC_TENANT: '' }, prompter, dispatcher: api.agent });
    // Nothing but the next step on a terminal.
    expect(result.stderr).toBe('Follow it: svc message watch m1\n');
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual(['Which tenant?']);
    api.verify();
  });

  it('send asks for the number to send from, the recipients and the body', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [{ phoneNumber: '+15551230000', status: 'Active' }] } });
    api.expect('POST', 'messages?isAsync=false', { status: 200, body: { messageId: 'm1', status: 'sent' } });
    const prompter = answering({ 'send from': '+15551230000', 'send to': '+15557650001, +15557650002', message: 'Hello there' });
    const result = await runCli(['send'], { tty: true, env, prompter, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(api.seen[1]!.body).toEqual({ from: '+15551230000', to: ['+15557650001', '+15557650002'], body: 'Hello there' });
    api.verify();
  });

  it('unprovision names what it will release; declining does nothing and exits 2', async () => {
    mock = createMockApi();
    const api = mock;
    const prompter = answering({ release: false });
    const result = await runCli(['number', 'unprovision', '+15551230001', '+15551230002'], { tty: true, env, prompter, dispatcher: api.agent });
    expect(result.code).toBe(2);
    expect(prompter.asked).toEqual([`Release 2 numbers +15551230001, +15551230002 of tenant ${TENANT}?`]);
    expect(result.stderr).toContain('Nothing was done.');
    expect(api.seen).toEqual([]);
    const yes = answering({ release: true });
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: { orderId: 8, status: 'Pending' } });
    expect((await runCli(['number', 'unprovision', '+15551230001'], { tty: true, env, prompter: yes, dispatcher: api.agent })).code).toBe(0);
    api.verify();
  });

  it('a send over the threshold says what it will do and asks; --yes skips the question', async () => {
    mock = createMockApi();
    const api = mock;
    const to = Array.from({ length: 101 }, (_, i) => `+1555765${String(i).padStart(4, '0')}`);
    const prompter = answering({ 'send to 101 recipients': 'no' });
    const declined = await runCli(['send', '--from', '+15551230000', '--to', ...to, '--body', 'hi'], { tty: true, env, prompter, dispatcher: api.agent });
    expect(declined.code).toBe(2);
    expect(prompter.asked).toEqual(['Send to 101 recipients from +15551230000?']);
    expect(api.seen).toEqual([]);
  });

  it('tenant create --use makes the new tenant the default; on a terminal it is offered', async () => {
    const config = tempConfigDir();
    cleanups.push(config.cleanup);
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ activeProfile: 'work', profiles: { work: { baseUrl: MOCK_ORIGIN, username: 'w@example.com', password: 'pw-pw' } } }));
    const stored = (): unknown => JSON.parse(readFileSync(join(config.dir, 'config.json'), 'utf8'));
    mock = createMockApi();
    const api = mock;
    api.expect('POST', 'tenants', { status: 201, body: { tenantId: TENANT, domain: 'a.example' } });
    const used = await runCli(['tenant', 'create', '--domain', 'a.example', '--use'], { env: { SVC_CONFIG_DIR: config.dir }, dispatcher: api.agent });
    expect(used.code).toBe(0);
    expect(used.stderr).toContain(`Tenant ${TENANT} is now the default of profile "work".`);
    expect(stored()).toMatchObject({ profiles: { work: { tenant: TENANT } } });
    api.expect('POST', 'tenants', { status: 201, body: { tenantId: OTHER_TENANT } });
    const prompter = answering({ 'default tenant': true });
    const offered = await runCli(['tenant', 'create'], { tty: true, env: { SVC_CONFIG_DIR: config.dir }, prompter, dispatcher: api.agent, secretStore: memorySecretStore() });
    expect(offered.code).toBe(0);
    expect(prompter.asked).toEqual([`Make ${OTHER_TENANT} the default tenant of profile "work"?`]);
    expect(stored()).toMatchObject({ profiles: { work: { tenant: OTHER_TENANT } } });
    api.verify();
  });

  it('tenant use checks the tenant, then stores it as the profile\'s default', async () => {
    const config = tempConfigDir();
    cleanups.push(config.cleanup);
    mkdirSync(config.dir, { recursive: true });
    writeFileSync(join(config.dir, 'config.json'), JSON.stringify({ activeProfile: 'work', profiles: { work: { baseUrl: MOCK_ORIGIN, username: 'w@example.com', password: 'pw-pw' } } }));
    mock = createMockApi();
    const api = mock;
    api.expect('GET', `tenants/${TENANT}`, { status: 200, body: { tenantId: TENANT } });
    const result = await runCli(['tenant', 'use', TENANT, '--json'], { env: { SVC_CONFIG_DIR: config.dir }, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ profile: 'work', tenant: TENANT });
    api.expect('GET', `tenants/${OTHER_TENANT}`, { status: 404, body: { message: 'Tenant not found' } });
    const missing = await runCli(['tenant', 'use', OTHER_TENANT], { env: { SVC_CONFIG_DIR: config.dir }, dispatcher: api.agent });
    expect(missing.code).toBe(4);
    const noProfile = await runCli(['tenant', 'use', TENANT], { env: { ...MOCK_ENV } });
    expect(noProfile.code).toBe(2);
    expect(noProfile.stderr).toContain('svc auth login');
    api.verify();
  });
});
