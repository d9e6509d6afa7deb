import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';
import { fitTable } from '../../src/output/fit.js';
import { selectFields } from '../../src/output/fields.js';

// Lists that say what they hold, tables that fit the terminal, and --fields.

let mock: MockApi | undefined;
afterEach(async () => {
  await mock?.agent.close();
  mock = undefined;
});

const GUID = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const numbers = (count: number, from = 0) =>
  Array.from({ length: count }, (_, i) => ({
    phoneNumber: `+1555123${String(from + i).padStart(4, '0')}`,
    status: 'Active',
    provisionType: 'SMS',
    tenantId: GUID,
    settings: { rateLimit: 5, autoResponse: { enabled: false } },
  }));

describe('number list on a terminal', () => {
  it('says how many more there are, on stderr, and how to see them', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers(20), page: 1, limit: 20, total: 25 } });
    const result = await runCli(['number', 'list'], { env: MOCK_ENV, dispatcher: mock.agent, tty: { stdout: true }, columns: 200 });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('20 of 25 shown: --all for every one, --page 2 for the next\n');
    expect(result.stdout.trim().split('\n')).toHaveLength(21);
    mock.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: { items: numbers(5, 20), page: 2, limit: 20, total: 25 } });
    const last = await runCli(['number', 'list', '--page', '2'], { env: MOCK_ENV, dispatcher: mock.agent, tty: { stdout: true }, columns: 200 });
    expect(last.stderr).toBe('');
    mock.verify();
  });

  it('says nothing when piped', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers(20), total: 27 } });
    const result = await runCli(['number', 'list'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.stderr).toBe('');
  });

  it('fits the table to the terminal by leaving out columns, never cutting an id, and never shortens --json or piped rows', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers(3), total: 3 } }, { times: 3 });
    const narrow = await runCli(['number', 'list'], { env: { ...MOCK_ENV, NO_COLOR: '1' }, dispatcher: mock.agent, tty: { stdout: true }, columns: 40 });
    const lines = narrow.stdout.trimEnd().split('\n');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
    expect(narrow.stdout).not.toContain('…');
    expect(narrow.stdout).not.toContain(GUID.slice(0, 8));
    expect(narrow.stderr).toMatch(/^Left out to fit the terminal: .*TENANT/);
    expect(narrow.stdout).toContain('+15551230000');
    const piped = await runCli(['number', 'list'], { env: MOCK_ENV, dispatcher: mock.agent, columns: 50 });
    expect(piped.stdout).toContain(GUID);
    expect(piped.stdout).not.toContain('…');
    const json = await runCli(['number', 'list', '--json'], { env: MOCK_ENV, dispatcher: mock.agent, tty: { stdout: true }, columns: 50 });
    expect(JSON.parse(json.stdout)[0].tenantId).toBe(GUID);
  });
});

describe('--fields', () => {
  it('keeps only the fields, nested as in the source, in --json, ndjson and tables', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers(2), total: 2 } }, { times: 3 });
    const json = await runCli(['number', 'list', '--json', '--fields', 'phoneNumber,settings.rateLimit'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(JSON.parse(json.stdout)).toEqual([
      { phoneNumber: '+15551230000', settings: { rateLimit: 5 } },
      { phoneNumber: '+15551230001', settings: { rateLimit: 5 } },
    ]);
    const ndjson = await runCli(['number', 'list', '-o', 'ndjson', '--fields', 'status'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(ndjson.stdout).toBe('{"status":"Active"}\n{"status":"Active"}\n');
    const table = await runCli(['number', 'list', '--fields', 'phoneNumber,settings.autoResponse.enabled'], { dispatcher: mock.agent, tty: { stdout: true }, env: { ...MOCK_ENV, NO_COLOR: '1' } });
    expect(table.stdout.split('\n')[0]).toMatch(/^PHONENUMBER\s+SETTINGS\.AUTORESPONSE\.ENABLED$/);
    expect(table.stdout).toMatch(/\+15551230000\s+false/);
  });

  it('applies to single objects too', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/%2B15551230000', { status: 200, body: numbers(1)[0] }, { times: 2 });
    const json = await runCli(['number', 'get', '+15551230000', '--json', '--fields', 'status,settings'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(JSON.parse(json.stdout)).toEqual({ status: 'Active', settings: { rateLimit: 5, autoResponse: { enabled: false } } });
    const text = await runCli(['number', 'get', '+15551230000', '--fields', 'status'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(text.stdout).toBe('status\tActive\n');
  });

  it('an unknown field is exit 2 listing the available ones', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers(2), total: 2 } });
    const result = await runCli(['number', 'list', '--json', '--fields', 'phoneNumber,colour'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(JSON.parse(result.stderr).error.message).toBe('--fields: "colour" is not a field of what this command prints');
    const text = await runCli(['number', 'list', '--fields', 'a..b'], { env: MOCK_ENV });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('"a..b" is not a field path');
  });

  it('names the available fields', async () => {
    mock = createMockApi();
    mock.expect('GET', 'phone-numbers/active', { status: 200, body: { items: numbers(1), total: 1 } });
    const result = await runCli(['number', 'list', '--fields', 'colour'], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Available: phoneNumber, status, provisionType, tenantId, settings, settings.rateLimit, settings.autoResponse, settings.autoResponse.enabled');
  });
});

describe('fitting and selecting, as functions', () => {
  it('cuts the widest free text first, keeps ids whole, and leaves out the least important column when cutting is not enough', () => {
    const id = (natural: number, importance: number) => ({ natural, header: 6, kind: 'id' as const, importance });
    const text = (natural: number, importance: number) => ({ natural, header: 4, kind: 'text' as const, importance });
    expect(fitTable([id(12, 3), text(36, 2), text(5, 1)], 200)).toEqual({ shown: [0, 1, 2], widths: [12, 36, 5], hidden: [] });
    expect(fitTable([id(12, 3), text(36, 2), text(5, 1)], 40)).toEqual({ shown: [0, 1, 2], widths: [12, 19, 5], hidden: [] });
    // Cutting the text to its floor (10) is not enough at 30: the least important column goes.
    expect(fitTable([id(12, 3), id(12, 1), text(36, 2)], 30)).toEqual({ shown: [0, 2], widths: [12, 16], hidden: [1] });
    // The last column standing stays, however wide.
    expect(fitTable([id(40, 2), id(12, 1)], 20)).toEqual({ shown: [0], widths: [40], hidden: [1] });
  });

  it('selects nested paths and leaves absent ones out', () => {
    expect(selectFields({ a: 1, b: { c: 2, d: 3 } }, ['b.c', 'x'])).toEqual({ b: { c: 2 } });
  });
});

describe('choosing the pager', () => {
  it('takes SVC_PAGER, then PAGER, then less -FRX; off for "" and cat, or when the program is not installed', async () => {
    const { pagerCommand } = await import('../../src/output/pager.js');
    const PATH = process.env['PATH'] ?? '';
    expect(pagerCommand({ PATH, SVC_PAGER: 'sed -n p', PAGER: 'more' })).toBe('sed -n p');
    expect(pagerCommand({ PATH, PAGER: 'sed -n p' })).toBe('sed -n p');
    expect(pagerCommand({ PATH: '/nonexistent' })).toBeUndefined();
    expect(pagerCommand({ PATH, SVC_PAGER: '' })).toBeUndefined();
    expect(pagerCommand({ PATH, SVC_PAGER: 'cat' })).toBeUndefined();
    expect(pagerCommand({ PATH, SVC_PAGER: 'no-such-pager-here --x' })).toBeUndefined();
  });
});
