import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV } from '../../helpers/mock-api.js';

const env = { ...MOCK_ENV };
const n = (i: number): Record<string, unknown> => ({ phoneNumber: `+1555123${String(i).padStart(4, '0')}`, status: 'Active', provisionType: 'SMS', provisionClass: 'P2P' });
const range = (from: number, count: number): Record<string, unknown>[] => Array.from({ length: count }, (_, i) => n(from + i));

describe('svc number list: one page, any envelope', () => {
  const envelopes: [string, (items: unknown[]) => unknown][] = [
    ['a bare array', (items) => items],
    ['{items}', (items) => ({ items, page: 1, limit: 20, total: items.length })],
    ['{data}', (items) => ({ data: items })],
    ['{results}', (items) => ({ results: items, count: items.length })],
    ['{value}', (items) => ({ value: items, '@odata.count': items.length })],
    ['{phoneNumbers}', (items) => ({ phoneNumbers: items })],
    ['{numbers: [...]} under an unknown key', (items) => ({ page: 1, numbersOnPage: items })],
  ];
  for (const [name, wrap] of envelopes) {
    it(`prints a JSON array from ${name}`, async () => {
      const api = createMockApi();
      api.expect('GET', 'phone-numbers/active', { status: 200, body: wrap(range(1, 3)) });
      const result = await runCli(['number', 'list', '--json'], { env, dispatcher: api.agent });
      expect(result.code).toBe(0);
      api.verify();
      expect(JSON.parse(result.stdout)).toEqual(range(1, 3));
    });
  }

  it('reads a 200 web page (a wrong base URL) as an unexpected answer, not an empty list', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active', { status: 200, body: '<!DOCTYPE html><html><head><title>Welcome</title></head></html>' });
    const result = await runCli(['number', 'list', '--json'], { env, dispatcher: api.agent });
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('Unexpected answer for GET /phone-numbers/active');
  });

  it('passes --page and --limit, and checks them before sending', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=3&limit=5', { status: 200, body: { items: range(11, 5) } });
    const result = await runCli(['number', 'list', '--page', '3', '--limit', '5'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(result.stdout.split('\n')[0]).toBe('+15551230011\tActive\tSMS\tP2P\t\t\t');
    const bad = await runCli(['number', 'list', '--limit', 'ten'], { env, dispatcher: api.agent });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--limit must be a whole number of at least 1, not "ten"');
  });

  it('shows an empty list on a terminal as a sentence on stderr', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active', { status: 200, body: { items: [] } });
    const result = await runCli(['number', 'list'], { env, dispatcher: api.agent, tty: true });
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('No active phone numbers.');
  });
});

describe('svc number list --all', () => {
  it('walks pages until a short one, streaming one object a line with -o ndjson', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1&limit=2', { status: 200, body: { items: range(1, 2), page: 1, limit: 2 } });
    api.expect('GET', 'phone-numbers/active?page=2&limit=2', { status: 200, body: { items: range(3, 2), page: 2, limit: 2 } });
    api.expect('GET', 'phone-numbers/active?page=3&limit=2', { status: 200, body: { items: range(5, 1), page: 3, limit: 2 } });
    const result = await runCli(['number', 'list', '--all', '--limit', '2', '-o', 'ndjson'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(result.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(range(1, 5));
  });

  it('stops at an empty page when pages are full (bare arrays, no limit given: the first page sets the size)', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1', { status: 200, body: range(1, 3) });
    api.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: range(4, 3) });
    api.expect('GET', 'phone-numbers/active?page=3', { status: 200, body: [] });
    const result = await runCli(['number', 'list', '--all', '--json'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(JSON.parse(result.stdout)).toEqual(range(1, 6));
  });

  it('keeps walking when a server clamps --limit and says nothing of it (bare arrays)', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1&limit=500', { status: 200, body: range(1, 3) });
    api.expect('GET', 'phone-numbers/active?page=2&limit=500', { status: 200, body: range(4, 3) });
    api.expect('GET', 'phone-numbers/active?page=3&limit=500', { status: 200, body: range(7, 1) });
    const result = await runCli(['number', 'list', '--all', '--limit', '500', '--json'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(JSON.parse(result.stdout)).toEqual(range(1, 7));
  });

  it('stops when the total is reached, without asking for an empty page ({data} envelope)', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1', { status: 200, body: { data: range(1, 2), total: 4, limit: 2 } });
    api.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: { data: range(3, 2), total: 4, limit: 2 } });
    const result = await runCli(['number', 'list', '--all', '--json'], { env, dispatcher: api.agent });
    api.verify();
    expect(JSON.parse(result.stdout)).toHaveLength(4);
  });

  it('stops on totalPages ({results}) and on hasMore: false ({value})', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1', { status: 200, body: { results: range(1, 2), totalPages: 2 } });
    api.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: { results: range(3, 2), totalPages: 2 } });
    expect(JSON.parse((await runCli(['number', 'list', '--all', '--json'], { env, dispatcher: api.agent })).stdout)).toHaveLength(4);
    api.expect('GET', 'phone-numbers/active?page=1', { status: 200, body: { value: range(1, 2), hasMore: false } });
    expect(JSON.parse((await runCli(['number', 'list', '--all', '--json'], { env, dispatcher: api.agent })).stdout)).toHaveLength(2);
    api.verify();
  });

  it('starts at --page and stops with a warning when the server ignores the page parameter', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: { items: range(1, 2) } });
    api.expect('GET', 'phone-numbers/active?page=3', { status: 200, body: { items: range(1, 2) } });
    const result = await runCli(['number', 'list', '--all', '--page', '2', '--json'], { env, dispatcher: api.agent });
    api.verify();
    expect(JSON.parse(result.stdout)).toHaveLength(2);
    expect(result.stderr).toContain('seems to ignore the page parameter');
  });
});

describe('svc number get', () => {
  it('sends + as %2B and prints the server object with --json', async () => {
    const api = createMockApi();
    const body = { phoneNumber: '+15551230001', status: 'Active', settings: { optOut: { enabled: true } }, unknownField: 1 };
    api.expect('GET', 'phone-numbers/%2B15551230001', { status: 200, body });
    const result = await runCli(['number', 'get', '+15551230001', '--json'], { env, dispatcher: api.agent });
    expect(result.code).toBe(0);
    api.verify();
    expect(api.seen[0]!.path).toBe('/api/v1/phone-numbers/%2B15551230001');
    expect(JSON.parse(result.stdout)).toEqual(body);
  });

  it('shows a readable view with the settings after the other fields', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/%2B15551230001', {
      status: 200,
      body: { settings: { autoForward: { enabled: true, emailAddresses: ['a@example.com', 'b@example.com'] } }, phoneNumber: '+15551230001', status: 'Active' },
    });
    const result = await runCli(['number', 'get', '+15551230001', '--no-color'], { env, dispatcher: api.agent, tty: true });
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('Phone number +15551230001');
    expect(lines[1]).toMatch(/^phoneNumber\s+\+15551230001$/);
    expect(result.stdout).toMatch(/settings\.autoForward\.emailAddresses\s+a@example\.com, b@example\.com/);
    expect(lines.findIndex((l) => l.startsWith('settings.'))).toBeGreaterThan(lines.findIndex((l) => l.startsWith('status')));
  });

  it('refuses a number that is not E.164 before sending, and maps 404 to exit 4', async () => {
    const api = createMockApi();
    const bad = await runCli(['number', 'get', '555-1234'], { env, dispatcher: api.agent });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"555-1234" is not an E.164 number');
    api.expect('GET', 'phone-numbers/%2B15551239999', { status: 404, body: { message: 'Phone number +15551239999 was not found' } });
    expect((await runCli(['number', 'get', '+15551239999'], { env, dispatcher: api.agent })).code).toBe(4);
  });
});

// A server whose pages cannot be right must not be walked for ever (nor its items listed twice).
describe('svc number list --all against a server that pages wrongly', () => {
  it('stops with exit 1 on pages that alternate, after printing what the first pages listed once', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1', { status: 200, body: { items: range(1, 2), limit: 2 } });
    api.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: { items: range(3, 2), limit: 2 } });
    api.expect('GET', 'phone-numbers/active?page=3', { status: 200, body: { items: [n(5), n(1)], limit: 2 } });
    const result = await runCli(['number', 'list', '--all', '-o', 'ndjson'], { env, dispatcher: api.agent });
    api.verify();
    expect(result.code).toBe(1);
    expect(result.stdout.trim().split('\n').map((line) => JSON.parse(line) as unknown)).toEqual(range(1, 4));
    expect(result.stderr).toContain('page 3 of the active numbers lists +15551230001 again');
  });

  it('stops with a warning (exit 0) on a page that repeats only what was listed: A, B, A', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1', { status: 200, body: range(1, 2) });
    api.expect('GET', 'phone-numbers/active?page=2', { status: 200, body: range(3, 2) });
    api.expect('GET', 'phone-numbers/active?page=3', { status: 200, body: range(1, 2) });
    const result = await runCli(['number', 'list', '--all', '--json'], { env, dispatcher: api.agent });
    api.verify();
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(range(1, 4));
    expect(result.stderr).toContain('repeats what earlier pages listed');
  });

  it('stops with exit 1 on a page longer than asked (pages that grow)', async () => {
    const api = createMockApi();
    api.expect('GET', 'phone-numbers/active?page=1&limit=2', { status: 200, body: range(1, 2) });
    api.expect('GET', 'phone-numbers/active?page=2&limit=2', { status: 200, body: range(3, 3) });
    const result = await runCli(['number', 'list', '--all', '--limit', '2', '--json'], { env, dispatcher: api.agent });
    api.verify();
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('page 2 of the active numbers holds 3 items where pages hold at most 2');
  });

  it('stops with exit 1 past the pages the first total allows (a total that grows with every page)', async () => {
    const api = createMockApi();
    for (let page = 1; page <= 4; page++) {
      api.expect('GET', `phone-numbers/active?page=${page}`, { status: 200, body: { items: range(page * 10, 2), limit: 2, total: 2 + page * 2 } });
    }
    const result = await runCli(['number', 'list', '--all', '--json'], { env, dispatcher: api.agent });
    api.verify();
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.message).toContain('page 4 of the active numbers lies past the 4 the first page gave as the total');
  });
});
