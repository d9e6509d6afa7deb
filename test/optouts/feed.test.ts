import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { eventRecord } from '../../src/events/records.js';
import { EventStoreReader } from '../../src/events/store/reader.js';
import { EventStoreWriter } from '../../src/events/store/writer.js';
import { ConsentFeed, inboundMessageOf } from '../../src/optouts/feed.js';
import { OptOutList } from '../../src/optouts/list.js';
import { appendOptOutChanges, readOptOutLog } from '../../src/optouts/log.js';
import { rebuildOptOuts } from '../../src/optouts/rebuild.js';

const work = mkdtempSync(join(tmpdir(), 'svc-optouts-feed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let n = 0;
const store = (): string => join(work, `store-${++n}`);

const US = '+15551230000';
const OTHER = '+15551230001';
const ANN = '+14155551001';
const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

function inbound(id: string, text: string, at: string, to = US, from = ANN): { id: string; payload: Record<string, unknown>; at: Date } {
  return { id, at: new Date(at), payload: { messageId: `m-${id}`, from, tos: [to], targetNumber: to, message: text, type: 0, tenantId: TENANT } };
}

describe('the message of an inbound event', () => {
  it('takes the text, the sender, the receiving number and the tenant; refuses outbound and shapeless events', () => {
    const e = inbound('dlv-1', 'STOP', '2026-03-01T10:00:00Z');
    expect(inboundMessageOf(e.payload, e.id, e.at)).toEqual({ id: 'dlv-1', at: e.at, from: ANN, to: US, text: 'STOP', tenant: TENANT });
    expect(inboundMessageOf({ ...e.payload, targetNumber: undefined }, 'x', e.at)?.to).toBe(US);
    expect(inboundMessageOf({ ...e.payload, type: 1 }, 'x', e.at)).toBeUndefined();
    expect(inboundMessageOf({ status: 'delivered' }, 'x', e.at)).toBeUndefined();
    expect(inboundMessageOf(null, 'x', e.at)).toBeUndefined();
  });
});

describe('the feed of the listener', () => {
  it("records STOP for the receiving number, STOPALL for every number, START back; reads each number's words once", async () => {
    const dir = store();
    const reads: string[] = [];
    const feed = new ConsentFeed({
      dir,
      by: 'webhook listen on test',
      warn: () => undefined,
      settingsOf: async (number) => {
        reads.push(number);
        return number === OTHER ? { optOut: { text: 'BASTA' } } : {};
      },
    });
    const message = (id: string, text: string, to = US) => inboundMessageOf(inbound(id, text, '2026-03-01T10:00:00Z', to).payload, id, new Date('2026-03-01T10:00:00Z'))!;
    expect(await feed.inbound(message('d1', 'Hello there'))).toBeUndefined();
    expect(await feed.inbound(message('d2', 'Stop.'))).toMatchObject({ op: 'out', from: US, keyword: 'STOP', event: 'd2', tenant: TENANT, by: 'webhook listen on test' });
    // A repeat changes nothing, and records nothing.
    expect(await feed.inbound(message('d3', 'STOP'))).toBeUndefined();
    expect(await feed.inbound(message('d4', 'basta', OTHER))).toMatchObject({ op: 'out', from: OTHER, keyword: 'BASTA' });
    expect(await feed.inbound(message('d5', 'basta', US))).toBeUndefined();
    expect(await feed.inbound(message('d6', 'start'))).toMatchObject({ op: 'in', from: US });
    expect(await feed.inbound(message('d7', 'STOPALL'))).toMatchObject({ op: 'out', from: '*' });
    expect(reads).toEqual([US, OTHER]);
    const { list } = OptOutList.read(dir);
    expect(list.lookupFor(US).has(ANN)).toBe(true);
    expect(list.lookupFor('+15559999999').has(ANN)).toBe(true);
    expect(readOptOutLog(dir).changes.map((c) => c.event)).toEqual(['d2', 'd4', 'd6', 'd7']);
  });

  it('falls back to the standard words when the settings cannot be read, and says so once', async () => {
    const dir = store();
    const warnings: string[] = [];
    let calls = 0;
    const feed = new ConsentFeed({
      dir,
      by: 'test',
      warn: (m) => warnings.push(m),
      settingsOf: async () => {
        calls++;
        throw new Error('no credentials');
      },
    });
    const at = new Date('2026-03-01T10:00:00Z');
    expect(await feed.inbound({ id: 'a', at, from: ANN, to: US, text: 'STOP' })).toMatchObject({ op: 'out' });
    expect(await feed.inbound({ id: 'b', at, from: '+14155551002', to: US, text: 'quit' })).toMatchObject({ op: 'out' });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('no credentials');
    // Not kept: the next message tries the settings again.
    expect(calls).toBe(2);
  });
});

describe('svc optouts rebuild (the list from stored events)', () => {
  async function storeEvents(dir: string, events: ReturnType<typeof inbound>[]): Promise<void> {
    const writer = EventStoreWriter.open(dir, { ack: 'fsync' });
    for (const e of events) {
      await writer.append(eventRecord({ id: e.id, type: 'MessageReceived', receivedAt: e.at, from: ANN, to: [US], headers: {}, raw: JSON.stringify(e.payload) }));
    }
    await writer.close();
  }

  it('replays STOP and START in order, records each change as an event, and adds nothing the second time', async () => {
    const dir = store();
    await storeEvents(dir, [
      inbound('e1', 'hi', '2026-03-01T10:00:00Z'),
      inbound('e2', 'STOP', '2026-03-01T10:01:00Z'),
      inbound('e3', 'Start!', '2026-03-01T10:02:00Z'),
      inbound('e4', 'unsubscribe', '2026-03-01T10:03:00Z'),
    ]);
    const first = await rebuildOptOuts(dir, { by: 'rebuild' });
    expect(first.messages).toBe(4);
    expect(first.made.map((c) => [c.event, c.op])).toEqual([['e2', 'out'], ['e3', 'in'], ['e4', 'out']]);
    expect(OptOutList.read(dir).list.lookupFor(US).has(ANN)).toBe(true);
    const stored = new EventStoreReader(dir).query({ kinds: ['event'], types: ['OptOut', 'OptIn'] });
    expect(stored.map((r) => [r.type, r.id])).toEqual([['OptOut', 'optout:e2'], ['OptIn', 'optin:e3'], ['OptOut', 'optout:e4']]);
    const again = await rebuildOptOuts(dir, { by: 'rebuild' });
    expect(again.made).toEqual([]);
  });

  it('never lets an older keyword override a newer decision in the list', async () => {
    const dir = store();
    await storeEvents(dir, [inbound('e1', 'STOP', '2026-03-01T10:00:00Z')]);
    // Lifted by hand after the STOP: the rebuild must not put the person back on the list.
    appendOptOutChanges(dir, [{ op: 'in', number: ANN, from: '*', at: '2026-03-02T00:00:00.000Z', cause: 'hand', by: 'someone' }]);
    const rebuilt = await rebuildOptOuts(dir, { by: 'rebuild' });
    expect(rebuilt.made).toEqual([]);
    expect(OptOutList.read(dir).list.size).toBe(0);
  });
});
