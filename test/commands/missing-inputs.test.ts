import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, scriptedPrompter, tempConfigDir, type RunOptions } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../helpers/mock-api.js';
import { memorySecretStore } from '../config/memory-secrets.js';

// A required input left out is asked for at a terminal (a list to choose from where there is
// one), and without a terminal is exit 2 naming how to give it, before anything is sent.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

let mock: MockApi | undefined;
let cleanups: (() => void)[] = [];
afterEach(async () => {
  await mock?.agent.close();
  mock = undefined;
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function store(data: object): string {
  const config = tempConfigDir();
  cleanups.push(config.cleanup);
  writeFileSync(join(config.dir, 'config.json'), JSON.stringify(data), { mode: 0o600 });
  return config.dir;
}

const twoProfiles = {
  activeProfile: 'work',
  profiles: {
    home: { baseUrl: MOCK_ORIGIN, username: 'h@example.com', password: 'pw-home' },
    work: { baseUrl: MOCK_ORIGIN, username: 'w@example.com', password: 'pw-work' },
  },
};

const stored = (dir: string): { activeProfile?: string; profiles: Record<string, unknown> } => JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8'));
const terminal = (dir: string, prompter: RunOptions['prompter']): RunOptions => ({ tty: true, env: { SVC_CONFIG_DIR: dir }, prompter, secretStore: memorySecretStore() });

describe('profile use and profile remove without a NAME', () => {
  it('profile use offers the stored profiles, the active one preselected and marked', async () => {
    const dir = store(twoProfiles);
    const prompter = scriptedPrompter({ 'which profile': 'home' }, { select: true });
    const result = await runCli(['profile', 'use'], terminal(dir, prompter));
    expect(result.code).toBe(0);
    expect(prompter.preselected).toEqual({ 'Which profile?': 'work' });
    expect(result.stderr).toBe('Profile "home" is now active.\n');
    expect(stored(dir).activeProfile).toBe('home');
  });

  it('profile remove offers them too, with nothing preselected, and still confirms', async () => {
    const dir = store(twoProfiles);
    const prompter = scriptedPrompter({ 'which profile': 'home', 'remove profile': true }, { select: true });
    const result = await runCli(['profile', 'remove'], terminal(dir, prompter));
    expect(result.code).toBe(0);
    expect(prompter.preselected).toEqual({ 'Which profile?': undefined });
    expect(prompter.asked).toEqual(['Which profile?', `Remove profile "home" (h@example.com at ${MOCK_ORIGIN}) and its stored password?`]);
    expect(Object.keys(stored(dir).profiles)).toEqual(['work']);
  });

  it('with no profile stored, says how to make one instead of asking', async () => {
    const dir = store({ profiles: {} });
    const prompter = scriptedPrompter({}, { select: true });
    const result = await runCli(['profile', 'use'], terminal(dir, prompter));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No profiles are stored yet');
    expect(result.stderr).toContain('svc auth login');
    expect(result.stderr).not.toContain('svc asks for it');
    expect(prompter.asked).toEqual([]);
  });

  it.each([['profile', 'use'], ['profile', 'remove']])('without a terminal, svc %s %s names the argument (exit 2)', async (...argv) => {
    const dir = store(twoProfiles);
    const prompter = scriptedPrompter({}, { select: true });
    const result = await runCli(argv, { env: { SVC_CONFIG_DIR: dir }, prompter });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`NAME (profile name) is missing: give it after \`svc ${argv.join(' ')}\``);
    expect(prompter.asked).toEqual([]);
    expect(stored(dir)).toEqual(twoProfiles);
  });
});

describe('number provision without a NUMBER', () => {
  it('on a terminal asks for the numbers first, then the type, class and tenant', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'tenants', { status: 200, body: [{ tenantId: TENANT }] });
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: { orderId: 9, status: 'Pending' } }, {
      body: (b) =>
        expect(b).toMatchObject({
          action: 'Provision',
          tenantId: TENANT,
          phoneNumbers: [
            { number: '+15551234567', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } },
            { number: '+15551234568', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } },
          ],
        }),
    });
    const prompter = scriptedPrompter({ 'numbers to provision': '+15551234567, +15551234568', 'provision type': 'SMS', 'provision class': 'P2P', 'which tenant': TENANT }, { select: true });
    const result = await runCli(['number', 'provision'], { tty: true, env: { ...MOCK_ENV }, prompter, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual(['Numbers to provision (E.164, separated by spaces or commas)', 'Provision type', 'Provision class', 'Which tenant?']);
    api.verify();
  });

  it('refuses a typed number that is not E.164 while it is typed', async () => {
    const verdicts: (true | string)[] = [];
    const prompter = {
      input: async (_message: string, options: { validate?: (value: string) => true | string } = {}) => {
        for (const typed of ['', '+1555 12', '5551234567']) verdicts.push(options.validate!(typed));
        throw new Error('stop after the checks');
      },
      password: async () => '',
      confirm: async () => false,
    };
    await runCli(['number', 'provision', '--type', 'SMS', '--class', 'P2P'], { tty: true, env: { ...MOCK_ENV, SVC_TENANT: TENANT }, prompter });
    expect(verdicts).toEqual(['at least one number, like +15551234567', '"+1555" is not an E.164 number (a + then 8 to 15 digits)', '"5551234567" is not an E.164 number (a + then 8 to 15 digits)']);
  });

  it('without a terminal names NUMBER... and --file (exit 2), before any request', async () => {
    mock = createMockApi();
    const prompter = scriptedPrompter({}, { select: true });
    for (const options of [{}, { tty: true, env: { CI: 'true' } }] as RunOptions[]) {
      const result = await runCli(['number', 'provision', '--type', 'SMS', '--class', 'P2P'], { ...options, env: { ...MOCK_ENV, SVC_TENANT: TENANT, ...options.env }, prompter, dispatcher: mock.agent });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain('The list of numbers to provision is missing: give NUMBER... or --file entries.json|entries.csv');
    }
    expect(prompter.asked).toEqual([]);
    expect(mock.seen).toEqual([]);
  });
});

describe('number unprovision without a NUMBER', () => {
  it('on a terminal offers the active numbers, then confirms the release', async () => {
    mock = createMockApi();
    const api = mock;
    api.expect('GET', 'phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [{ phoneNumber: '+15551230001', status: 'Active' }], total: 1 } });
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: { orderId: 10, status: 'Pending' } }, {
      body: (b) => expect(b).toEqual({ action: 'Unprovision', tenantId: TENANT, phoneNumbers: [{ number: '+15551230001' }] }),
    });
    const prompter = scriptedPrompter({ 'release which number': '+15551230001', 'release number': true }, { select: true });
    const result = await runCli(['number', 'unprovision'], { tty: true, env: { ...MOCK_ENV, SVC_TENANT: TENANT }, prompter, dispatcher: api.agent });
    expect(result.code).toBe(0);
    expect(prompter.asked).toEqual(['Release which number?', `Release number +15551230001 of tenant ${TENANT}?`]);
    api.verify();
  });

  it('with no active number, says how to get one', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [], total: 0 } });
    const prompter = scriptedPrompter({}, { select: true });
    const result = await runCli(['number', 'unprovision'], { tty: true, env: { ...MOCK_ENV, SVC_TENANT: TENANT }, prompter, dispatcher: mock.agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The account has no active numbers yet');
    expect(result.stderr).toContain('svc number provision');
    mock.verify();
  });

  it('without a terminal names the argument (exit 2)', async () => {
    mock = createMockApi();
    const result = await runCli(['number', 'unprovision', '--yes'], { env: { ...MOCK_ENV, SVC_TENANT: TENANT }, dispatcher: mock.agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('NUMBER... (E.164 numbers) is missing: give it after `svc number unprovision`');
    expect(mock.seen).toEqual([]);
  });
});
