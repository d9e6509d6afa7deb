import { describe, expect, it } from 'vitest';
import { describeOrderChanges, failureSummary, orderEntries, orderIdOf, orderOutcome } from '../../../../src/commands/order/shared/order-status.js';

describe('orderOutcome', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ status: 'Pending' }, 'pending'],
    [{ status: 'Processing', completionDate: null }, 'pending'],
    [{ status: 'AwaitingCampaignApproval' }, 'pending'],
    [{ status: 'Completed' }, 'completed'],
    [{ status: 'completed' }, 'completed'],
    [{ status: 'Failed' }, 'failed'],
    [{ status: 'Error' }, 'failed'],
    [{ status: 'Rejected' }, 'failed'],
    [{ status: 'Cancelled' }, 'failed'],
    [{ status: 'Canceled' }, 'failed'],
    [{ status: 'PartiallyFailed' }, 'failed'],
    [{ status: 'Closed', completionDate: '2026-01-01T00:05:00Z' }, 'completed'],
    [{ status: 'Completed', phoneNumbers: [{ number: '+15551230001', status: 'Active' }, { number: '+15551230002', status: 'Failed' }] }, 'failed'],
    [{}, 'pending'],
  ];
  for (const [order, outcome] of cases) {
    it(`${JSON.stringify(order)} is ${outcome}`, () => expect(orderOutcome(order)).toBe(outcome));
  }
});

describe('reading orders', () => {
  it('finds the id and entries under the usual names', () => {
    expect(orderIdOf({ orderId: 7 })).toBe('7');
    expect(orderIdOf({ id: 'ab-1' })).toBe('ab-1');
    expect(orderIdOf({})).toBeUndefined();
    expect(orderEntries({ phoneNumbers: [{ phoneNumber: '+15551230001', status: 'Failed', errorMessage: 'no route' }] })).toEqual([
      { number: '+15551230001', status: 'Failed', phoneNumberId: undefined, error: 'no route' },
    ]);
  });

  it('describes each change in one line', () => {
    const a = { status: 'Pending', phoneNumbers: [{ number: '+15551230001', status: 'Pending' }, { number: '+15551230002', status: 'Pending' }] };
    const b = { status: 'Processing', phoneNumbers: [{ number: '+15551230001', status: 'Active' }, { number: '+15551230002', status: 'Pending' }] };
    expect(describeOrderChanges('9', undefined, a)).toEqual(['order 9: Pending (+15551230001 Pending, +15551230002 Pending)']);
    expect(describeOrderChanges('9', a, b)).toEqual(['order 9: Processing', 'order 9: +15551230001 Active']);
    expect(describeOrderChanges('9', b, b)).toEqual([]);
  });

  it('summarises a failure with the numbers that failed', () => {
    const order = { status: 'Failed', phoneNumbers: [{ number: '+15550101234', status: 'Failed', errorMessage: 'Carrier refused' }] };
    expect(failureSummary('9', order)).toBe('Order 9 ended Failed: +15550101234 (Carrier refused)');
  });
});
