import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeClock, runCli } from '../helpers/cli.js';
import { createMockApi, MOCK_ENV, type MockApi } from '../helpers/mock-api.js';

// The order logic of `svc apply` in-process: a 409 is resolved by reading each number, a wait
// that times out is exit 5 and the next run waits for the same order (from the write-ahead
// record) instead of ordering again, --no-wait stops after submitting.

const T1 = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const FILE = `version: 1
tenants:
  - tenantId: ${T1}
numbers:
  - {number: "+15555550100", tenant: ${T1}, type: SMS, class: P2P}
  - {number: "+15555550101", tenant: ${T1}, type: SMS, class: P2P}
`;
const NOT_FOUND = { status: 404, body: { message: 'not found', title: 'Not Found', errorCode: 'NOT_FOUND' } };

function number(n: string, status: string): { status: number; body: Record<string, unknown> } {
  return { status: 200, body: { phoneNumber: n, status, tenantId: T1, provisionType: 'SMS', provisionClass: 'P2P', settings: {} } };
}

function order(id: number, status: string, numbers: string[], entry = status === 'Completed' ? 'Active' : 'Pending'): { status: number; body: Record<string, unknown> } {
  return { status: 200, body: { orderId: id, status, action: 'Provision', tenantId: T1, phoneNumbers: numbers.map((n) => ({ number: n, status: entry })) } };
}

let dir: string;
let api: MockApi;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-apply-orders-'));
  writeFileSync(join(dir, 'fleet.yaml'), FILE);
  api = createMockApi();
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (args: string[]) =>
  runCli(args, { env: { ...MOCK_ENV, SVC_CONFIG_DIR: dir, SVC_DATA_DIR: dir, SVC_ORDER_POLL_MS: '200' }, dispatcher: api.agent, clock: fakeClock() });

function expectEmptyLive(): void {
  api.expect('GET', '/tenants', { status: 200, body: [{ tenantId: T1, settings: {} }] });
  api.expect('GET', '/phone-numbers/active?page=1&limit=100', { status: 200, body: { items: [], page: 1, limit: 100, total: 0 } });
}

describe('svc apply: orders', () => {
  it('a 409 is resolved by reading each number: one in flight is waited for, one released is ordered again', async () => {
    expectEmptyLive();
    api.expect('GET', '/phone-numbers/%2B15555550100', NOT_FOUND);
    api.expect('GET', '/phone-numbers/%2B15555550101', NOT_FOUND);
    api.expect('POST', '/phone-numbers/provision', { status: 409, body: { message: 'Phone number +15555550100 is already provisioned or being provisioned', title: 'Conflict', errorCode: 'CONFLICT' } });
    api.expect('GET', '/phone-numbers/%2B15555550100', number('+15555550100', 'Pending'));
    api.expect('GET', '/phone-numbers/%2B15555550101', number('+15555550101', 'Released'));
    api.expect('POST', '/phone-numbers/provision', { status: 202, body: order(7, 'Pending', ['+15555550101']).body }, {
      body: (body) => expect(body).toEqual({ action: 'Provision', tenantId: T1, phoneNumbers: [{ number: '+15555550101', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } }] }),
    });
    api.expect('GET', '/phone-numbers/orders/7', order(7, 'Completed', ['+15555550101']));
    api.expect('GET', '/phone-numbers/%2B15555550100', number('+15555550100', 'Active'));
    const result = await run(['apply', '-f', join(dir, 'fleet.yaml')]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('was refused as already provisioned or in flight: read each; 1 taken care of');
    expect(result.stderr).toContain('Submitted order 7: 1 SMS/P2P number');
    expect(api.seen.filter((r) => r.method === 'POST')).toHaveLength(2);
  });

  it('a number held by another account (409 to the order, 404 to our read) is found by halves, blocked with its reason, and the rest is ordered once', async () => {
    const [a, b, c] = ['+15555550100', '+15555550101', '+15555550102'];
    writeFileSync(join(dir, 'fleet.yaml'), `${FILE}  - {number: "${c}", tenant: ${T1}, type: SMS, class: P2P}\n`);
    expectEmptyLive();
    for (const n of [a, b, c]) api.expect('GET', `/phone-numbers/${encodeURIComponent(n)}`, NOT_FOUND);
    const conflict = { status: 409, body: { message: `Phone number ${b} is already provisioned or being provisioned`, title: 'Conflict', errorCode: 'CONFLICT' } };
    const ordered: string[][] = [];
    const numbersOf = (body: unknown) => ordered.push((body as { phoneNumbers: { number: string }[] }).phoneNumbers.map((e) => e.number));
    // The order of three is refused; none of them is visible to this account.
    api.expect('POST', '/phone-numbers/provision', conflict, { body: numbersOf });
    for (const n of [a, b, c]) api.expect('GET', `/phone-numbers/${encodeURIComponent(n)}`, NOT_FOUND);
    // First half: taken.
    api.expect('POST', '/phone-numbers/provision', { status: 202, body: order(11, 'Pending', [a]).body }, { body: numbersOf });
    // Second half refused again, read again, then each alone: b refused, c taken.
    api.expect('POST', '/phone-numbers/provision', conflict, { body: numbersOf });
    for (const n of [b, c]) api.expect('GET', `/phone-numbers/${encodeURIComponent(n)}`, NOT_FOUND);
    api.expect('POST', '/phone-numbers/provision', conflict, { body: numbersOf });
    api.expect('GET', `/phone-numbers/${encodeURIComponent(b)}`, NOT_FOUND);
    api.expect('POST', '/phone-numbers/provision', { status: 202, body: order(12, 'Pending', [c]).body }, { body: numbersOf });
    api.expect('GET', '/phone-numbers/orders/11', order(11, 'Completed', [a]));
    api.expect('GET', '/phone-numbers/orders/12', order(12, 'Completed', [c]));
    const result = await run(['apply', '-f', join(dir, 'fleet.yaml')]);
    expect(ordered).toEqual([[a, b, c], [a], [b, c], [b], [c]]);
    expect(result.stderr).toContain(`Blocked: ${b}: it is held by another account: the service refuses to provision it (409 CONFLICT) and does not show it to this account (404)`);
    expect(result.stderr).not.toContain(`Blocked: ${a}`);
    expect(result.stdout).toContain('Applied: 2 changes made, 1 blocked.');
    // A change no request can make: exit 1, as a blocked plan is (not 5: running again will not mend it).
    expect(result.code).toBe(1);

    // --json says which change was blocked and why.
    expectEmptyLive();
    for (const n of [a, b, c]) api.expect('GET', `/phone-numbers/${encodeURIComponent(n)}`, n === b ? NOT_FOUND : number(n, 'Active'));
    api.expect('POST', '/phone-numbers/provision', conflict, { body: numbersOf });
    api.expect('GET', `/phone-numbers/${encodeURIComponent(b)}`, NOT_FOUND);
    const again = await run(['apply', '-f', join(dir, 'fleet.yaml'), '--json']);
    const changes = (JSON.parse(again.stdout) as { changes: { action: string; target: string; reason?: string }[] }).changes;
    expect(changes).toEqual([expect.objectContaining({ action: 'blocked', target: b, reason: expect.stringContaining('held by another account') })]);
    expect(again.code).toBe(1);
  });

  it('a wait that times out is exit 5; the next run waits for the same order, found in the record, and orders nothing', async () => {
    expectEmptyLive();
    api.expect('GET', '/phone-numbers/%2B15555550100', NOT_FOUND);
    api.expect('GET', '/phone-numbers/%2B15555550101', NOT_FOUND);
    const both = ['+15555550100', '+15555550101'];
    api.expect('POST', '/phone-numbers/provision', { status: 202, body: order(9, 'Pending', both).body });
    // 200 + 300 + 450 ms of polling, then the last 50 ms up to the 1 s timeout: four reads.
    api.expect('GET', '/phone-numbers/orders/9', order(9, 'Processing', both), { times: 4 });
    const first = await run(['apply', '-f', join(dir, 'fleet.yaml'), '--wait-timeout', '1']);
    expect(first.code).toBe(5);
    expect(first.stderr).toContain('Stopped waiting after 1 s with orders in flight (9); run `svc apply');
    expect(readdirSync(join(dir, 'apply'))).toHaveLength(1);

    expectEmptyLive();
    api.expect('GET', '/phone-numbers/%2B15555550100', number('+15555550100', 'Pending'));
    api.expect('GET', '/phone-numbers/%2B15555550101', number('+15555550101', 'Pending'));
    api.expect('GET', '/phone-numbers/orders/9', order(9, 'Completed', both));
    const second = await run(['apply', '-f', join(dir, 'fleet.yaml'), '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('2 numbers are in orders already in flight (an earlier apply): waiting for them, not ordering again');
    const outcome = JSON.parse(second.stdout) as { changes: { target: string; outcome: string; orderId?: string; inFlight?: boolean }[]; inSync: boolean };
    expect(outcome.inSync).toBe(true);
    expect(outcome.changes.map((c) => [c.target, c.outcome, c.orderId, c.inFlight])).toEqual([
      ['+15555550100', 'done', '9', true],
      ['+15555550101', 'done', '9', true],
    ]);
    expect(api.seen.filter((r) => r.method === 'POST')).toHaveLength(1);
    // Nothing left in flight: the record is gone.
    expect(readdirSync(join(dir, 'apply'))).toEqual([]);
  });

  it('--no-wait submits and stops (exit 0), saying the numbers may still be Pending', async () => {
    expectEmptyLive();
    api.expect('GET', '/phone-numbers/%2B15555550100', NOT_FOUND);
    api.expect('GET', '/phone-numbers/%2B15555550101', NOT_FOUND);
    api.expect('POST', '/phone-numbers/provision', { status: 202, body: order(11, 'Pending', ['+15555550100', '+15555550101']).body });
    const result = await run(['apply', '-f', join(dir, 'fleet.yaml'), '--no-wait']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('Not waiting (--no-wait): orders 11 are in flight; numbers may still be Pending.');
    expect(result.stdout).toContain('Applied: 0 changes made, 2 submitted and still in flight.');
  });

  it('a blocked change stops apply before any write (exit 1)', async () => {
    api.expect('GET', '/tenants', { status: 200, body: [{ tenantId: T1, settings: {} }] });
    api.expect('GET', '/phone-numbers/active?page=1&limit=100', {
      status: 200,
      body: { items: [{ ...number('+15555550100', 'Active').body, provisionType: 'MMS' }, number('+15555550101', 'Active').body], page: 1, limit: 100, total: 2 },
    });
    const result = await run(['apply', '-f', join(dir, 'fleet.yaml')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('A change is blocked (no request can make it), so nothing was changed:\n  +15555550100: its type cannot change once provisioned');
    expect(api.seen.every((r) => r.method === 'GET')).toBe(true);
  });
});
