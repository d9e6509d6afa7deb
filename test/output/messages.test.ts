import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MockAgent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, MOCK_ORIGIN, type MockApi } from '../helpers/mock-api.js';

// Messages that point the right way: each names what went wrong and what to do next.

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
let mock: MockApi | undefined;
let cleanup = (): void => undefined;
afterEach(async () => {
  await mock?.agent.close();
  mock = undefined;
  cleanup();
});

describe('messages that point the right way', () => {
  it('a tenant not found that is the profile\'s default says so and names `svc tenant use`', async () => {
    const config = tempConfigDir();
    cleanup = config.cleanup;
    writeFileSync(
      join(config.dir, 'config.json'),
      JSON.stringify({ activeProfile: 'sandbox', profiles: { sandbox: { baseUrl: MOCK_ORIGIN, username: 's@example.com', password: 'pw-pw', tenant: TENANT } } }),
    );
    mock = createMockApi();
    mock.expect('POST', 'phone-numbers/provision', { status: 404, body: { message: `Tenant ${TENANT} was not found`, errorCode: 'NOT_FOUND' } });
    const result = await runCli(['number', 'provision', '+15551234567', '--type', 'SMS', '--class', 'P2P'], { env: { SVC_CONFIG_DIR: config.dir }, dispatcher: mock.agent });
    expect(result.code).toBe(4);
    expect(result.stderr).toContain(`${TENANT} is the default tenant of profile "sandbox", and the service no longer has it`);
    expect(result.stderr).toContain('svc tenant use GUID');
  });

  it('a send refused for its from-number points to `svc number list`', async () => {
    mock = createMockApi();
    mock.expect('POST', 'messages?isAsync=false', { status: 400, body: { message: 'from +15551230000 must be an active provisioned number of yours', errorCode: 'VALIDATION_ERROR' } });
    const result = await runCli(['send', '--from', '+15551230000', '--to', '+15557650001', '--body', 'hi'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Is +15551230000 one of your active numbers? `svc number list` shows them');
  });

  it('a base URL without its scheme suggests one', async () => {
    const plain = await runCli(['auth', 'login', '--base-url', 'api.example.com', '--username', 'u@example.com', '--password-stdin'], { stdin: 'pw' });
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain('did you mean https://api.example.com?');
    const local = await runCli(['auth', 'login', '--base-url', 'localhost:4010', '--username', 'u@example.com', '--password-stdin'], { stdin: 'pw' });
    expect(local.code).toBe(2);
    expect(local.stderr).toContain('did you mean http://localhost:4010?');
  });

  it('auth login --sandbox that finds no sandbox says how to find it', async () => {
    const config = tempConfigDir();
    cleanup = config.cleanup;
    const agent = new MockAgent();
    agent.disableNetConnect();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4010'), { code: 'ECONNREFUSED' });
    agent.get('http://127.0.0.1:4010').intercept({ method: 'GET', path: '/api/v1/tenants' }).replyWithError(refused).persist();
    try {
      const result = await runCli(['auth', 'login', '--sandbox'], { env: { SVC_CONFIG_DIR: config.dir }, dispatcher: agent });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('No sandbox answers at http://127.0.0.1:4010');
      expect(result.stderr).toContain('svc auth login --sandbox --base-url http://127.0.0.1:PORT');
    } finally {
      await agent.close();
    }
  });
});

describe('a recipients CSV without a phone column', () => {
  it('says the header has no phone column instead of blaming a name', async () => {
    const config = tempConfigDir();
    cleanup = config.cleanup;
    const file = join(config.dir, 'people.csv');
    writeFileSync(file, 'name,mobile\nAl,+15557650001\n');
    const result = await runCli(['send', '--from', '+15551230000', '--to-file', file, '--body', 'hi {{name}}'], { env: MOCK_ENV });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${file}:2: "Al" is not an E.164 number; the header has no phone column (phone, number, to, recipient), so the first, "name", was read`);
  });
});
