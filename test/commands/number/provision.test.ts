import { afterAll, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../../helpers/mock-api.js';
import { fileDir, order, TENANT } from './helpers.js';

const files = fileDir('svc-provision-');
afterAll(() => files.cleanup());

const env = { ...MOCK_ENV, SVC_TENANT: TENANT };

/** Runs a provision that must be refused before any request: no interceptor, so any request fails. */
async function refused(args: string[], extraEnv: Record<string, string> = {}): Promise<{ code: number; stderr: string }> {
  const api = createMockApi();
  const result = await runCli(['number', 'provision', ...args], { env: { ...env, ...extraEnv }, dispatcher: api.agent });
  expect(api.seen).toEqual([]);
  expect(result.stdout).toBe('');
  return result;
}

describe('svc number provision: the request', () => {
  it('sends one Provision request with every entry field from flags, enumerations in the document spelling', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', [['+15551230001', 'Pending'], ['+15551230002', 'Pending']]) });
    const result = await runCli(
      [
        'number', 'provision', '+15551230001', '+15551230002',
        '--type', 'smsmms', '--class', 'a2p', '--campaign-id', 'C1', '--brand-id', 'B1',
        '--email', 'ops@example.com', '--description', 'Support', '--domain', 'example.com',
        '--platform-type', 'platformaindividual', '--loa-url', 'https://media.example/loa.pdf', '--billing-plan', 'A2P250', '--json',
      ],
      { env, dispatcher: api.agent },
    );
    expect(result.code).toBe(0);
    api.verify();
    const entry = {
      email: 'ops@example.com',
      description: 'Support',
      domain: 'example.com',
      platformType: 'PlatformAIndividual',
      campaignId: 'C1',
      brandId: 'B1',
      loaUrl: 'https://media.example/loa.pdf',
      billingPlan: 'A2P250',
      messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'A2P' },
    };
    expect(api.seen[0]!.body).toEqual({
      action: 'Provision',
      tenantId: TENANT,
      phoneNumbers: [
        { number: '+15551230001', ...entry },
        { number: '+15551230002', ...entry },
      ],
    });
    expect(JSON.parse(result.stdout)).toMatchObject({ orderId: 42, status: 'Pending' });
  });

  it('takes the tenant from --tenant over SVC_TENANT, and from the request in a JSON file', async () => {
    const other = '11111111-2222-4333-8444-555555555555';
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', []) }, { times: 2 });
    await runCli(['number', 'provision', '+15551230001', '--type', 'SMS', '--class', 'P2P', '--tenant', other], { env, dispatcher: api.agent });
    const request = files.write('request.json', JSON.stringify({ action: 'Provision', tenantId: other, phoneNumbers: [{ number: '+15551230002', messagingFeature: { provisionType: 'MMS', provisionClass: 'P2P' } }] }));
    const fromFile = await runCli(['number', 'provision', '--file', request], { env, dispatcher: api.agent });
    expect(fromFile.code).toBe(0);
    api.verify();
    expect(api.seen.map((s) => (s.body as { tenantId: string }).tenantId)).toEqual([other, other]);
    expect((api.seen[1]!.body as { phoneNumbers: unknown[] }).phoneNumbers).toEqual([{ number: '+15551230002', messagingFeature: { provisionType: 'MMS', provisionClass: 'P2P' } }]);
  });

  it('combines NUMBER arguments with a CSV file, flags filling what a row leaves empty', async () => {
    const csv = files.write('numbers.csv', 'number,email,description,settings.optOut.enabled\r\n+15551230002,a@example.com,"Desk, 2",yes\r\n+15551230003,,,\r\n');
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', []) });
    const result = await runCli(['number', 'provision', '+15551230001', '--file', csv, '--type', 'SMS', '--class', 'P2P', '--billing-plan', 'P2P500'], {
      env,
      dispatcher: api.agent,
    });
    expect(result.code).toBe(0);
    const feature = { provisionType: 'SMS', provisionClass: 'P2P' };
    expect((api.seen[0]!.body as { phoneNumbers: unknown[] }).phoneNumbers).toEqual([
      { number: '+15551230001', billingPlan: 'P2P500', messagingFeature: feature },
      { number: '+15551230002', email: 'a@example.com', description: 'Desk, 2', billingPlan: 'P2P500', messagingFeature: feature, settings: { optOut: { enabled: true } } },
      { number: '+15551230003', billingPlan: 'P2P500', messagingFeature: feature },
    ]);
  });

  it('shows the order for people, with the numbers and how to follow it', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', [['+15551230001', 'Pending']]) });
    const result = await runCli(['number', 'provision', '+15551230001', '--type', 'SMS', '--class', 'P2P', '--no-color'], { env, dispatcher: api.agent, tty: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Order 42');
    expect(result.stdout).toMatch(/\+15551230001\s+Pending/);
    expect(result.stderr).toContain('svc order watch 42');
  });
});

describe('svc number provision: validation before any request (exit 2)', () => {
  const base = ['--type', 'SMS', '--class', 'P2P'];
  const cases: [string, string[], RegExp][] = [
    ['no number', [...base], /The list of numbers to provision is missing: give NUMBER... or --file/],
    ['a number that is not E.164', ['5551230001', ...base], /"5551230001" is not an E\.164 number/],
    ['a number starting with 0', ['+05551230001', ...base], /"\+05551230001" is not an E\.164 number/],
    ['a number too short', ['+1555', ...base], /"\+1555" is not an E\.164 number/],
    ['a duplicate number', ['+15551230001', '+15551230001', ...base], /\+15551230001 is listed twice/],
    ['a missing type', ['+15551230001', '--class', 'P2P'], /no provision type for \+15551230001: give --type SMS\|MMS\|SMSMMS/],
    ['a missing class', ['+15551230001', '--type', 'SMS'], /no provision class for \+15551230001/],
    ['an unknown type', ['+15551230001', '--type', 'RCS', '--class', 'P2P'], /--type must be one of SMS, MMS, SMSMMS, not "RCS"/],
    ['an unknown class', ['+15551230001', '--type', 'SMS', '--class', 'B2B'], /--class must be one of P2P, A2P, not "B2B"/],
    ['an unknown platform', ['+15551230001', ...base, '--platform-type', 'Fax'], /--platform-type must be one of PlatformAIndividual.*not "Fax"/],
    ['A2P without campaign and brand', ['+15551230001', '--type', 'SMS', '--class', 'A2P'], /\+15551230001 is A2P and needs a campaign \(--campaign-id\) and a brand \(--brand-id\)/],
    ['A2P without brand', ['+15551230001', '--type', 'SMS', '--class', 'A2P', '--campaign-id', 'C1'], /needs a brand \(--brand-id\)$/m],
    ['a bad email', ['+15551230001', ...base, '--email', 'ops'], /"ops" is not an email address/],
    ['a plain-http LOA link', ['+15551230001', ...base, '--loa-url', 'http://example.com/loa.pdf'], /LOA link "http:\/\/example\.com\/loa\.pdf" must be an https:\/\/ URL/],
    ['a tenant that is not a GUID', ['+15551230001', ...base, '--tenant', 'acme'], /--tenant must be a GUID .*not "acme"/],
    ['--interval without --wait', ['+15551230001', ...base, '--interval', '1'], /--interval only applies with --wait/],
    ['a bad --wait-timeout', ['+15551230001', ...base, '--wait', '--wait-timeout', 'soon'], /--wait-timeout must be a number/],
  ];
  for (const [name, args, message] of cases) {
    it(`refuses ${name}`, async () => {
      const result = await refused(args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    });
  }

  it('refuses when no tenant is known, saying how to give one', async () => {
    const result = await refused(['+15551230001', ...base], { SVC_TENANT: '' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('The tenant is missing: give --tenant GUID or set SVC_TENANT');
  });

  it('refuses a bad SVC_TENANT naming its source', async () => {
    const result = await refused(['+15551230001', ...base], { SVC_TENANT: 'not-a-guid' });
    expect(result.stderr).toMatch(/SVC_TENANT must be a GUID .*"not-a-guid"/);
  });

  it('lists every problem of a CSV file by file:line, and sends nothing', async () => {
    const csv = files.write(
      'bad.csv',
      'number,email,type,class,campaignId,brandId\n+15551230001,a@example.com,SMS,P2P,,\n15551230002,,SMS,P2P,,\n+15551230003,,SMS,A2P,C1,\n+15551230001,,SMS,P2P,,\n+15551230004,x,SMS,P2P,,\n',
    );
    const result = await refused(['--file', csv]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('4 problems with the numbers to provision (nothing was sent)');
    expect(result.stderr).toContain(`${csv}:3: "15551230002" is not an E.164 number`);
    expect(result.stderr).toContain(`${csv}:4: +15551230003 is A2P and needs a brand (brandId or --brand-id)`);
    expect(result.stderr).toContain(`${csv}:5: +15551230001 is listed twice (also ${csv}:2)`);
    expect(result.stderr).toContain(`${csv}:6: "x" is not an email address`);
  });

  it('names the line of a bad entry in a JSON array, and the problems in --json errors too', async () => {
    const json = files.write('bad.json', '[\n  {"number": "+15551230001"},\n  {"number": "+15551230002", "platformType": "Pager"}\n]\n');
    const result = await refused(['--file', json, ...base, '--json']);
    expect(result.code).toBe(2);
    const error = JSON.parse(result.stderr) as { error: { message: string } };
    expect(error.error.message).toBe(`${json}:3: platform type "Pager" is not one of PlatformAIndividual, PlatformAChannel, PlatformBSpace, PlatformC, PlatformD`);
  });

  it('refuses a flag that contradicts a file entry, a missing file, malformed JSON and another action', async () => {
    const csv = files.write('typed.csv', 'number,type\n+15551230001,MMS\n');
    expect((await refused(['--file', csv, ...base])).stderr).toContain(`${csv}:2: the provision type is "MMS" for +15551230001 but --type says "SMS"`);
    expect((await refused(['--file', '/nonexistent/n.csv', ...base])).stderr).toContain('Cannot read --file /nonexistent/n.csv: no such file');
    const broken = files.write('broken.json', '[\n  {"number": "+15551230001",}\n]');
    expect((await refused(['--file', broken, ...base])).stderr).toMatch(new RegExp(`${broken.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2:\\d+: invalid JSON`));
    const unprovision = files.write('release.json', JSON.stringify({ action: 'Unprovision', tenantId: TENANT, phoneNumbers: [{ number: '+15551230001' }] }));
    expect((await refused(['--file', unprovision, ...base])).stderr).toContain('the request\'s action is "Unprovision"');
    const otherTenant = files.write('other.json', JSON.stringify({ tenantId: '11111111-2222-4333-8444-555555555555', phoneNumbers: [{ number: '+15551230001' }] }));
    expect((await refused(['--file', otherTenant, ...base, '--tenant', TENANT])).stderr).toContain('give one or the other');
  });
});

describe('svc number provision --wait', () => {
  it('follows the order to Completed and prints the order as it ended', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', [['+15551230001', 'Pending']]) });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: order('Processing', [['+15551230001', 'Pending']]) });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: order('Completed', [['+15551230001', 'Active']]) });
    const clock = fakeClock();
    const result = await runCli(['number', 'provision', '+15551230001', '--type', 'SMS', '--class', 'P2P', '--wait', '--json'], {
      env: { ...env, SVC_ORDER_POLL_MS: '500' },
      dispatcher: api.agent,
      clock,
    });
    expect(result.code).toBe(0);
    api.verify();
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Completed', phoneNumbers: [{ number: '+15551230001', status: 'Active' }] });
    // The first read waits one interval after the submit, then the backoff grows.
    expect(clock.sleeps).toEqual([500, 750]);
    expect(result.stderr.split('\n').filter(Boolean)).toEqual([
      'order 42: Pending (+15551230001 Pending)',
      'order 42: Processing',
      'order 42: Completed',
      'order 42: +15551230001 Active',
    ]);
  });

  it('exits 5 when the order fails, still printing it', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', [['+15550101234', 'Pending']]) });
    api.expect('GET', 'phone-numbers/orders/42', {
      status: 200,
      body: { ...order('Failed', []), phoneNumbers: [{ number: '+15550101234', status: 'Failed', errorMessage: 'The carrier refused the number' }] },
    });
    const result = await runCli(['number', 'provision', '+15550101234', '--type', 'SMS', '--class', 'P2P', '--wait', '--json'], {
      env,
      dispatcher: api.agent,
      clock: fakeClock(),
    });
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Failed' });
    expect(result.stderr).toContain('Order 42 ended Failed: +15550101234 (The carrier refused the number)');
  });

  it('exits 5 on --wait-timeout, with the order as last seen on stdout', async () => {
    const api = createMockApi();
    api.expect('POST', 'phone-numbers/provision', { status: 202, body: order('Pending', [['+15551230001', 'Pending']]) });
    api.expect('GET', 'phone-numbers/orders/42', { status: 200, body: order('Processing', [['+15551230001', 'Pending']]) }, { times: 6 });
    const clock = fakeClock();
    const result = await runCli(['number', 'provision', '+15551230001', '--type', 'SMS', '--class', 'P2P', '--wait', '--interval', '1', '--wait-timeout', '10', '--json'], {
      env,
      dispatcher: api.agent,
      clock,
    });
    expect(result.code).toBe(5);
    expect(JSON.parse(result.stdout)).toMatchObject({ status: 'Processing' });
    expect(result.stderr).toContain('Timed out waiting for order 42 after 10 s');
    // Growing from 1 s, never past 2 s while the wait is young, the last cut to the deadline.
    expect(clock.sleeps).toEqual([1000, 1500, 2000, 2000, 2000, 1500]);
  });
});
