import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConsentFeed, inboundMessageOf } from '../../src/optouts/feed.js';
import { OptOutList } from '../../src/optouts/list.js';
import { EVERY_NUMBER, optOutsPath, readOptOutLog, type ConsentChange } from '../../src/optouts/log.js';
import { consentRecord, describeConsentRecord } from '../../src/optouts/record.js';

// An opt-out of every number (STOPALL, a number's allText) is about the numbers of the tenant the
// message arrived for; one kept without a tenant still keeps the person from every number.

const work = mkdtempSync(join(tmpdir(), 'svc-optouts-tenant-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const store = (): string => join(work, `store-${++n}`);

const TENANT_A = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';
const TENANT_B = '9b2c1d7e-0a4f-4c1b-8e2d-5f6a7b8c9d0e';
const A_NUMBER = '+15551230000';
const A_OTHER = '+15551230002';
const B_NUMBER = '+15551230001';
const ANN = '+14155551001';

function feedOf(dir: string): ConsentFeed {
  return new ConsentFeed({ dir, by: 'webhook listen on test', warn: () => undefined });
}

function message(id: string, text: string, to: string, tenant: string | undefined) {
  const payload = { messageId: `m-${id}`, from: ANN, tos: [to], targetNumber: to, message: text, type: 0, ...(tenant !== undefined ? { tenantId: tenant } : {}) };
  return inboundMessageOf(payload, id, new Date('2026-03-01T10:00:00Z'))!;
}

function change(op: 'out' | 'in', from: string, tenant?: string): ConsentChange {
  return { op, number: ANN, from, at: '2026-03-01T10:00:00.000Z', cause: 'hand', by: 'tester@host', ...(tenant !== undefined ? { tenant } : {}) };
}

describe('STOPALL per tenant', () => {
  it("leaves the person out of tenant A's sends and not tenant B's; a send of no known tenant leaves them out", async () => {
    const dir = store();
    const feed = feedOf(dir);
    expect(await feed.inbound(message('d1', 'STOPALL', A_NUMBER, TENANT_A))).toMatchObject({ op: 'out', from: EVERY_NUMBER, tenant: TENANT_A });
    const { list } = OptOutList.read(dir);
    expect(list.lookupFor(A_NUMBER, TENANT_A).has(ANN)).toBe(true);
    expect(list.lookupFor(A_OTHER, TENANT_A).has(ANN)).toBe(true);
    expect(list.lookupFor(B_NUMBER, TENANT_B).has(ANN)).toBe(false);
    expect(list.lookupFor(B_NUMBER, TENANT_B).size).toBe(0);
    // A GUID's letter case does not make it another tenant.
    expect(list.lookupFor(A_OTHER, TENANT_A.toUpperCase()).has(ANN)).toBe(true);
    expect(list.lookupFor(B_NUMBER).has(ANN)).toBe(true);
    expect(list.entryFor(A_OTHER, ANN, TENANT_A)?.keyword).toBe('STOPALL');
    expect(list.entryFor(B_NUMBER, ANN, TENANT_B)).toBeUndefined();
    // The same word for tenant B is a change of its own, not a repeat.
    expect(await feed.inbound(message('d2', 'stop all', B_NUMBER, TENANT_B))).toMatchObject({ tenant: TENANT_B });
    expect(OptOutList.read(dir).list.lookupFor(B_NUMBER, TENANT_B).has(ANN)).toBe(true);
  });

  it("START to one number lifts that number's and its tenant's every-number opt-out, and no other tenant's", async () => {
    const dir = store();
    const feed = feedOf(dir);
    await feed.inbound(message('d1', 'STOPALL', A_NUMBER, TENANT_A));
    await feed.inbound(message('d2', 'STOPALL', B_NUMBER, TENANT_B));
    expect(await feed.inbound(message('d3', 'START', A_NUMBER, TENANT_A))).toMatchObject({ op: 'in', from: A_NUMBER, tenant: TENANT_A });
    const { list } = OptOutList.read(dir);
    expect(list.lookupFor(A_NUMBER, TENANT_A).has(ANN)).toBe(false);
    expect(list.lookupFor(A_OTHER, TENANT_A).has(ANN)).toBe(false);
    expect(list.lookupFor(B_NUMBER, TENANT_B).has(ANN)).toBe(true);
    // A START to tenant B's number in a message that names no tenant cannot lift B's: it stays.
    expect(await feed.inbound(message('d4', 'START', B_NUMBER, undefined))).toBeUndefined();
    expect(OptOutList.read(dir).list.lookupFor(B_NUMBER, TENANT_B).has(ANN)).toBe(true);
  });

  it("an opt-in for every number of a tenant lifts that tenant's opt-outs only; one without a tenant lifts them all", () => {
    const list = new OptOutList([change('out', EVERY_NUMBER, TENANT_A), change('out', EVERY_NUMBER, TENANT_B), change('out', A_NUMBER, TENANT_A), change('out', B_NUMBER, TENANT_B)]);
    expect(list.changes(change('in', EVERY_NUMBER, TENANT_A))).toBe(true);
    list.apply(change('in', EVERY_NUMBER, TENANT_A));
    expect(list.lookupFor(A_NUMBER, TENANT_A).has(ANN)).toBe(false);
    expect(list.lookupFor(B_NUMBER, TENANT_B).has(ANN)).toBe(true);
    expect(list.changes(change('in', EVERY_NUMBER, TENANT_A))).toBe(false);
    list.apply(change('in', EVERY_NUMBER));
    expect(list.size).toBe(0);
  });

  it('shows the tenant in the events it stores', () => {
    const record = consentRecord({ ...change('out', EVERY_NUMBER, TENANT_A), keyword: 'STOPALL' });
    expect(describeConsentRecord(record.type, record.body)).toBe(`opted out of every number of tenant ${TENANT_A} (STOPALL)`);
    const old = consentRecord({ ...change('out', EVERY_NUMBER), keyword: 'STOPALL' });
    expect(describeConsentRecord(old.type, old.body)).toBe('opted out of every number (STOPALL)');
  });
});

describe('a list kept before opt-outs carried a tenant', () => {
  // Two lines exactly as an older svc wrote them: an every-number opt-out with no tenant, and one of a number.
  const OLD_LINES = [
    '{"op":"out","number":"+14155551007","from":"*","at":"2026-02-01T09:00:00.000Z","cause":"keyword","keyword":"STOPALL","event":"dlv-old-1","by":"webhook listen on old-host","crc":"5b22b033"}',
    '{"op":"out","number":"+14155551008","from":"+15551230000","at":"2026-02-01T09:05:00.000Z","cause":"hand","by":"ann@old-host","crc":"2b20c32f"}',
  ];

  it('still reads, and its every-number opt-out still leaves the person out of every tenant\'s sends', () => {
    const dir = store();
    mkdirSync(dir, { recursive: true });
    writeFileSync(optOutsPath(dir), `${OLD_LINES.join('\n')}\n`);
    const { changes, damaged } = readOptOutLog(dir);
    expect(damaged).toEqual([]);
    expect(changes).toHaveLength(2);
    expect(changes[0]!.tenant).toBeUndefined();
    const { list } = OptOutList.read(dir);
    for (const [from, tenant] of [[A_NUMBER, TENANT_A], [B_NUMBER, TENANT_B], [B_NUMBER, undefined]] as const) {
      expect(list.lookupFor(from, tenant).has('+14155551007')).toBe(true);
    }
    expect(list.lookupFor(A_NUMBER, TENANT_A).has('+14155551008')).toBe(true);
    expect(list.lookupFor(B_NUMBER, TENANT_B).has('+14155551008')).toBe(false);
  });
});
