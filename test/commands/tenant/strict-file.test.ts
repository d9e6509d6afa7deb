import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../../helpers/mock-api.js';

// Every --file is strict: an unknown key is exit 2 naming the key, its line and the closest
// known key, before any request. The webhook fields the document shows at the top level of a
// tenant body stay accepted there.

const dir = mkdtempSync(join(tmpdir(), 'svc-strict-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

let mock: MockApi | undefined;
afterEach(async () => {
  await mock?.agent.close();
  mock = undefined;
});

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

describe('strict --file', () => {
  it('tenant create refuses a misspelt key, naming its line and the closest known key', async () => {
    mock = createMockApi();
    const misspelt = file('t1.json', '{\n  "domian": "x.example"\n}\n');
    const result = await runCli(['tenant', 'create', '--file', misspelt], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${misspelt}:2: unknown key "domian"; did you mean "domain"?`);
    expect(mock.seen).toEqual([]);
  });

  it('webhookPrimaryUrl, at the top level or in settings, points to webhookPrimaryUri', async () => {
    mock = createMockApi();
    const top = file('t2.json', '{"domain": "x.example",\n "webhookPrimaryUrl": "https://hooks.example.com/a"}');
    const nested = file('t3.json', '{\n  "settings": {\n    "webhookEventType": "All",\n    "webhookPrimaryUrl": "https://hooks.example.com/a"\n  }\n}');
    const a = await runCli(['tenant', 'create', '--file', top], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(`${top}:2: unknown key "webhookPrimaryUrl"; did you mean "webhookPrimaryUri"?`);
    const b = await runCli(['tenant', 'update', TENANT, '--file', nested], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${nested}:4: unknown key "settings.webhookPrimaryUrl"; did you mean "webhookPrimaryUri"?`);
    expect(mock.seen).toEqual([]);
  });

  it('keeps accepting the webhook fields at the top level of a tenant body', async () => {
    mock = createMockApi();
    mock.expect('POST', 'tenants', { status: 201, body: { tenantId: TENANT } });
    const top = file('t4.json', '{"webhookPrimaryUri": "https://hooks.example.com/a", "webhookEventType": "orderstatus"}');
    const result = await runCli(['tenant', 'create', '--file', top], { env: MOCK_ENV, dispatcher: mock.agent });
    expect(result.code).toBe(0);
    expect(mock.seen[0]!.body).toEqual({ settings: { webhookPrimaryUri: 'https://hooks.example.com/a', webhookEventType: 'OrderStatus' } });
    mock.verify();
  });

  it('number provision files name the closest key too', async () => {
    const request = file('p1.json', '{\n  "tenantID": "3f2504e0-4f89-11d3-9a0c-0305e82c3301",\n  "phoneNumbers": []\n}');
    const a = await runCli(['number', 'provision', '--file', request, '--type', 'SMS', '--class', 'P2P'], { env: MOCK_ENV });
    expect(a.code).toBe(2);
    expect(a.stderr).toContain(`${request}:2: unknown field "tenantID" in the request; did you mean "tenantId"?`);
    const csv = file('p2.csv', 'numbr,email\n+15551234567,a@example.com\n');
    const b = await runCli(['number', 'provision', '--file', csv, '--type', 'SMS', '--class', 'P2P'], { env: { ...MOCK_ENV, SVC_TENANT: TENANT } });
    expect(b.code).toBe(2);
    expect(b.stderr).toContain(`${csv}:1: unknown column "numbr"; did you mean "number"?`);
  });
});
