import { describe, expect, it } from 'vitest';
import { move, newDelivery, toFailedEvent, type DeliveryStep } from '../../../src/sandbox/webhooks/delivery-record.js';
import { nextAttemptAt, retryWindowMs } from '../../../src/sandbox/webhooks/retry-schedule.js';

const TARGET = { tenantId: 't1', primaryUri: 'https://hooks.example.com/a' };

function recordAfter(steps: DeliveryStep[]): ReturnType<typeof newDelivery> {
  const record = newDelivery('dlv_1', 'OrderStatus', TARGET, { orderId: 1 }, 0);
  for (const step of steps) move(record, step);
  return record;
}

describe('a delivery record moves only by the table', () => {
  it.each([
    [['due', 'start', 'delivered'], 'delivered'],
    [['due', 'start', 'retry', 'due', 'start', 'give-up'], 'failed'],
    [['due', 'start', 'refused', 'replay'], 'ready'],
    [['due', 'start', 'aborted', 'start'], 'in-flight'],
  ] as [DeliveryStep[], string][])('%j ends %s', (steps, phase) => {
    expect(recordAfter(steps).phase).toBe(phase);
  });

  it.each([
    [[], 'start'],
    [['due'], 'delivered'],
    [['due', 'start', 'delivered'], 'retry'],
    [['due', 'start', 'give-up'], 'start'],
    [['due', 'start'], 'replay'],
  ] as [DeliveryStep[], DeliveryStep][])('refuses %j then %s', (steps, step) => {
    const record = recordAfter(steps);
    expect(() => move(record, step)).toThrow(/no step/);
  });

  it('becomes a failure-queue entry with its payload and times', () => {
    const record = recordAfter(['due', 'start', 'give-up']);
    Object.assign(record, { attempts: 3, firstAttemptAtMs: 1_000, lastAttemptAtMs: 2_000, lastStatus: 503, lastError: 'HTTP 503' });
    expect(toFailedEvent(record, 9_000)).toEqual({
      deliveryId: 'dlv_1',
      event: 'OrderStatus',
      tenantId: 't1',
      attempts: 3,
      firstAttemptAt: new Date(1_000).toISOString(),
      lastAttemptAt: new Date(2_000).toISOString(),
      lastStatus: 503,
      lastError: 'HTTP 503',
      payload: { orderId: 1 },
    });
  });
});

describe('nextAttemptAt', () => {
  const failed = (status: number | null, retryAfter?: string) => ({ status, retryAfter });
  it('waits the backoff, the 5xx cap when either URI failed server-side, and Retry-After when longer', () => {
    expect(nextAttemptAt(1, [failed(503)], 10_000, 0)).toBe(15_000);
    expect(nextAttemptAt(10, [failed(400), failed(503)], 10_000, 0)).toBe(70_000);
    expect(nextAttemptAt(10, [failed(400)], 10_000, 0)).toBe(10_000 + 30 * 60_000);
    expect(nextAttemptAt(1, [failed(429, '120')], 10_000, 0)).toBe(130_000);
  });

  it('gives up when the next attempt would fall past the 24 h window', () => {
    const window = retryWindowMs();
    expect(nextAttemptAt(20, [failed(503)], window - 60_000, 0)).toBe(window);
    expect(nextAttemptAt(20, [failed(503)], window - 59_999, 0)).toBeNull();
  });
});
