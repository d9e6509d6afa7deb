import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sentRecord, sentRecordLine } from '../../src/events/records.js';
import { recordLine } from '../../src/events/store/record.js';
import { jsonString, jsonStrings } from '../../src/output/json-text.js';
import { elementFor, elementJson } from '../../src/send/results.js';

describe('JSON text of strings without JSON.stringify', () => {
  it('is what JSON.stringify writes, for every UTF-16 code unit and any string', () => {
    for (let c = 0; c < 0x10000; c++) {
      const text = `a${String.fromCharCode(c)}b`;
      expect(jsonString(text)).toBe(JSON.stringify(text));
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.array(fc.string({ unit: 'binary' })), (one, many) => {
        expect(jsonString(one)).toBe(JSON.stringify(one));
        expect(jsonStrings(many)).toBe(JSON.stringify(many));
      }),
    );
    expect(jsonStrings([])).toBe('[]');
    expect(jsonStrings(['+15551230000', 'x"y\\'])).toBe(JSON.stringify(['+15551230000', 'x"y\\']));
  });

  it("makes the event store's line of a sent message exactly as recordLine does", () => {
    const text = fc.string({ unit: 'binary' });
    fc.assert(
      fc.property(
        fc.record({ messageId: text, from: text, to: text, body: text, status: fc.option(text, { nil: undefined }), at: fc.oneof(text, fc.date({ noInvalidDate: true })) }),
        (m) => {
          const sent = { messageId: m.messageId, from: m.from, to: m.to, body: m.body, at: m.at, ...(m.status !== undefined ? { status: m.status } : {}) };
          expect(sentRecordLine(sent)).toBe(recordLine(sentRecord(sent)));
        },
      ),
    );
    const sent = { messageId: 'm-1', from: '+15551230000', to: '+15552000000', body: 'Hello "Ann"\n', at: new Date(0), status: 'queued' };
    expect(sentRecordLine(sent)).toBe(recordLine(sentRecord(sent)));
  });
});

describe("a send result's -o ndjson line", () => {
  it('is JSON.stringify(elementFor(result)), whatever keys the answer has', () => {
    const key = fc.oneof(fc.constantFrom('to', '0', '12', '01', '', 'messageId', 'status', '__proto__'), fc.string({ unit: 'binary' }));
    fc.assert(
      fc.property(fc.dictionary(key, fc.jsonValue()), fc.array(fc.string({ unit: 'binary' }), { minLength: 1 }), (answer, to) => {
        const parsed = JSON.parse(JSON.stringify(answer)) as Record<string, unknown>;
        const result = { to, outcome: 'accepted' as const, answer: parsed };
        expect(elementJson(result)).toBe(JSON.stringify(elementFor(result)));
      }),
    );
    const rejected = { to: ['+15551230000'], outcome: 'rejected' as const, exitCode: 1, error: { status: 400, message: 'bad', title: null, errorCode: null } };
    expect(elementJson(rejected as never)).toBe(JSON.stringify(elementFor(rejected as never)));
    const plain = { to: ['+15551230000'], outcome: 'accepted' as const, answer: { messageId: 'm-1', status: 'queued' } };
    expect(elementJson(plain)).toBe('{"to":["+15551230000"],"messageId":"m-1","status":"queued"}');
  });
});
