import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../../helpers/mock-api.js';
import { fileDir } from './helpers.js';

const env = { ...MOCK_ENV };
const files = fileDir('svc-number-update-');
afterAll(() => files.cleanup());
const PATH = 'phone-numbers/%2B15551230001';

async function update(args: string[], answer: { status: number; body?: unknown } = { status: 200, body: { phoneNumber: '+15551230001' } }): Promise<{ code: number; stdout: string; stderr: string; sent: unknown }> {
  const api = createMockApi();
  api.expect('PUT', PATH, answer);
  const result = await runCli(['number', 'update', '+15551230001', ...args], { env, dispatcher: api.agent });
  return { ...result, sent: api.seen[0]?.body };
}

async function refused(args: string[]): Promise<string> {
  const api = createMockApi();
  const result = await runCli(['number', 'update', '+15551230001', ...args], { env, dispatcher: api.agent });
  expect(api.seen).toEqual([]);
  expect(result.code).toBe(2);
  return result.stderr;
}

describe('svc number update: the body', () => {
  it('sends only the fields given, from flags, in the document names', async () => {
    const result = await update([
      '--description', 'Support', '--user-id', 'u@example.com', '--external-id', 'X-1', '--platform-type', 'platformc',
      '--campaign-id', 'C1', '--brand-id', 'B1', '--loa-url', 'https://media.example/loa.pdf', '--activated', 'yes', '--mms', 'false',
      '--billing-plan', 'volume pricing',
    ]);
    expect(result.code).toBe(0);
    expect(result.sent).toEqual({
      description: 'Support',
      userId: 'u@example.com',
      externalId: 'X-1',
      platformType: 'PlatformC',
      campaignId: 'C1',
      brandId: 'B1',
      loaUrl: 'https://media.example/loa.pdf',
      isActivated: true,
      isMMSEnabled: false,
      billingPlanName: 'Volume Pricing',
    });
  });

  it('types --set values by the schema, for every settings group, into one settings object', async () => {
    const result = await update([
      '--set', 'settings.notifications.enableSound=true',
      '--set', 'settings.notifications.platformA.notificationName=Ops',
      '--set', 'settings.autoResponse.newThreadsOnly=1',
      '--set', 'settings.optIn.message=Welcome',
      '--set', 'settings.optOut.periodicCron=0 9 * * 1',
      '--set', 'settings.autoForward.emailAddresses=a@example.com,b@example.com',
      '--set', 'settings.outOfOffice.startDate=2026-07-01T09:00:00Z',
      '--set', 'settings.signature.enabled=no',
      '--set', 'settings.aiSettings.isEnabled=true',
      '--set', 'settings.rateLimit=30',
      '--set', 'settings.noOutboundTexts=false',
    ]);
    expect(result.code).toBe(0);
    expect(result.sent).toEqual({
      settings: {
        notifications: { enableSound: true, platformA: { notificationName: 'Ops' } },
        autoResponse: { newThreadsOnly: true },
        optIn: { message: 'Welcome' },
        optOut: { periodicCron: '0 9 * * 1' },
        autoForward: { emailAddresses: ['a@example.com', 'b@example.com'] },
        outOfOffice: { startDate: '2026-07-01T09:00:00Z' },
        signature: { enabled: false },
        aiSettings: { isEnabled: true },
        rateLimit: 30,
        noOutboundTexts: false,
      },
    });
  });

  it('takes a JSON file, with flags and --set over it', async () => {
    const file = files.write('update.json', JSON.stringify({ description: 'From file', isActivated: false, settings: { optOut: { enabled: true, text: 'STOP' } } }));
    const result = await update(['--file', file, '--description', 'From flag', '--set', 'settings.optOut.text=END']);
    expect(result.sent).toEqual({ description: 'From flag', isActivated: false, settings: { optOut: { enabled: true, text: 'END' } } });
  });

  it('reads the number back when the answer has no body, and prints the answer when it has one', async () => {
    const api = createMockApi();
    api.expect('PUT', PATH, { status: 204 });
    api.expect('GET', PATH, { status: 200, body: { phoneNumber: '+15551230001', description: 'Read back' } });
    const result = await runCli(['number', 'update', '+15551230001', '--description', 'Read back', '--json'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(JSON.parse(result.stdout)).toEqual({ phoneNumber: '+15551230001', description: 'Read back' });
    const answered = await update(['--description', 'x', '--json'], { status: 200, body: { phoneNumber: '+15551230001', description: 'x', v: 2 } });
    expect(JSON.parse(answered.stdout)).toEqual({ phoneNumber: '+15551230001', description: 'x', v: 2 });
  });
});

describe('svc number update: refusals before any request (exit 2)', () => {
  it('names the unknown path and the value, with close paths', async () => {
    const stderr = await refused(['--set', 'settings.autoForward.emailAdresses=a@example.com']);
    expect(stderr).toContain('settings.autoForward.emailAdresses is not a phone-number setting (value "a@example.com")');
    expect(stderr).toContain('Did you mean settings.autoForward.emailAddresses');
  });

  it('names the path and the mistyped value for each type', async () => {
    expect(await refused(['--set', 'settings.rateLimit=high'])).toContain('settings.rateLimit takes a whole number of at least 0, not "high"');
    expect(await refused(['--set', 'settings.optIn.enabled=perhaps'])).toContain('settings.optIn.enabled takes true or false');
    expect(await refused(['--set', 'settings.outOfOffice.endDate=tomorrow'])).toContain('settings.outOfOffice.endDate takes an ISO 8601 date-time');
    expect(await refused(['--set', 'settings.optOut.periodicCron=weekly'])).toContain('settings.optOut.periodicCron takes a cron expression');
    expect(await refused(['--set', 'settings.autoForward.emailAddresses=ops'])).toContain('"ops" is not one');
  });

  it('refuses the immutable fields from --file and --set', async () => {
    for (const key of ['owner', 'billableOwner', 'provider', 'number', 'phoneNumber']) {
      const file = files.write(`immutable-${key}.json`, JSON.stringify({ [key]: 'x' }));
      expect(await refused(['--file', file])).toContain(`"${key}" cannot be changed after provisioning`);
    }
    expect(await refused(['--set', 'owner=someone'])).toContain('"owner" cannot be changed');
  });

  it('refuses unknown fields and wrong types in the file, bad booleans, bad links, and an empty update', async () => {
    expect(await refused(['--file', files.write('u1.json', '{"colour": "red"}')])).toMatch(/u1\.json:1: unknown key "colour"/);
    expect(await refused(['--file', files.write('u1b.json', '{\n  "description": "x",\n  "extrnalId": "y"\n}')])).toMatch(/u1b\.json:3: unknown key "extrnalId"; did you mean "externalId"\?/);
    expect(await refused(['--file', files.write('u2.json', '{"isActivated": "yes"}')])).toContain('"isActivated" must be true or false');
    expect(await refused(['--file', files.write('u3.json', '{"settings": {"rateLimit": "5"}}')])).toContain('settings.rateLimit takes an integer of at least 0, not "5"');
    expect(await refused(['--file', files.write('u4.json', '{"billingPlanName": "Gold"}')])).toContain('billingPlanName must be one of');
    expect(await refused(['--activated', 'sure'])).toContain('--activated takes true or false, not "sure"');
    expect(await refused(['--loa-url', 'ftp://x/loa.pdf'])).toContain('--loa-url must be an https:// URL');
    expect(await refused(['--billing-plan', 'Gold'])).toContain('--billing-plan must be one of 250, 500, 1000, 2000, Pooled, Volume Pricing');
    expect(await refused([])).toContain('Nothing to update');
  });
});
