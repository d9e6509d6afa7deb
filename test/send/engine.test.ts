import { describe, expect, it } from 'vitest';
import { runBulk } from '../../src/send/engine.js';
import { journalRecordFor, UNREACHABLE_AFTER, type BulkRequest, type BulkResult } from '../../src/send/bulk-types.js';
import { classifyFailure } from '../../src/send/outcome.js';
import { ApiError, AuthError, InterruptedError, NetworkError } from '../../src/errors.js';
import type { JournalRecord } from '../../src/send/journal/format.js';

/** `count` requests in batches of `batchSize` (one a batch by default, so that pulls can be counted). */
async function* requestsOf(count: number, onPull?: (i: number) => void, batchSize = 1): AsyncGenerator<BulkRequest<number>[]> {
  let batch: BulkRequest<number>[] = [];
  for (let i = 0; i < count; i++) {
    onPull?.(i);
    batch.push({ to: [`+1555700${String(i).padStart(4, '0')}`], payload: i });
    if (batch.length === batchSize) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/** A send whose answers are released by the test, so that the window can be observed. */
function gatedSend(): { send: (r: BulkRequest<number>) => Promise<Record<string, unknown>>; pending: (() => void)[]; inFlight: () => number } {
  const pending: (() => void)[] = [];
  let inFlight = 0;
  return {
    pending,
    inFlight: () => inFlight,
    send: (request) =>
      new Promise((resolve) => {
        inFlight++;
        pending.push(() => {
          inFlight--;
          resolve({ messageId: `m${request.payload}`, status: 'queued' });
        });
      }),
  };
}

// Two turns of the event loop: the engine wakes its launcher at the end of the turn in which
// answers arrive (so that they launch together), and the launches follow in the next.
const tick = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

describe('runBulk', () => {
  it('never has more than `concurrency` requests in flight, and pulls lazily from the stream', async () => {
    const gate = gatedSend();
    let pulled = 0;
    const results: BulkResult[] = [];
    const done = runBulk({
      requests: requestsOf(20, (i) => (pulled = i + 1)),
      send: gate.send,
      concurrency: 3,
      signal: new AbortController().signal,
      onResult: (r) => results.push(r),
    });
    let peak = 0;
    while (results.length < 20) {
      await tick();
      peak = Math.max(peak, gate.inFlight());
      expect(pulled - results.length).toBeLessThanOrEqual(4);
      gate.pending.shift()?.();
    }
    const summary = await done;
    expect(peak).toBe(3);
    expect(summary).toMatchObject({ requests: 20, accepted: 20, rejected: 0, unknown: 0, interrupted: false });
  });

  it('journals each result before handing it on', async () => {
    const order: string[] = [];
    let seq = 0;
    const journal = {
      launch: (requests: readonly { readonly to: readonly string[] }[]) =>
        requests.map((r) => {
          order.push(`launch ${r.to[0]}`);
          return ++seq;
        }),
      result: (n: number, r: JournalRecord) => order.push(`journal ${n} ${r.to[0]} ${r.outcome}`),
    };
    await runBulk({
      requests: requestsOf(2),
      send: async (r) => {
        if (r.payload === 1) throw new ApiError('boom', { status: 500 });
        return { messageId: 'a', status: 'queued' };
      },
      concurrency: 1,
      journal,
      signal: new AbortController().signal,
      onResult: (r) => order.push(`result ${r.to[0]}`),
    });
    expect(order).toEqual([
      'launch +15557000000',
      'journal 1 +15557000000 accepted',
      'result +15557000000',
      'launch +15557000001',
      'journal 2 +15557000001 rejected',
      'result +15557000001',
    ]);
  });

  it('keeps the window across batches and stops mid-batch on abort', async () => {
    const gate = gatedSend();
    const controller = new AbortController();
    const results: BulkResult[] = [];
    const done = runBulk({ requests: requestsOf(40, undefined, 7), send: gate.send, concurrency: 3, signal: controller.signal, onResult: (r) => results.push(r) });
    for (let round = 0; round < 4; round++) {
      await tick();
      expect(gate.inFlight()).toBe(3);
      for (const release of gate.pending.splice(0)) release();
    }
    await tick();
    controller.abort();
    await tick();
    for (const release of gate.pending.splice(0)) release();
    const summary = await done;
    expect(summary.interrupted).toBe(true);
    expect(summary.requests).toBe(15);
    expect(results.map((r) => r.to[0])).toEqual(Array.from({ length: 15 }, (_, i) => `+1555700${String(i).padStart(4, '0')}`));
  });

  it('stops launching on abort and waits for every request in flight', async () => {
    const gate = gatedSend();
    const controller = new AbortController();
    const results: BulkResult[] = [];
    const done = runBulk({ requests: requestsOf(100), send: gate.send, concurrency: 5, signal: controller.signal, onResult: (r) => results.push(r) });
    await tick();
    expect(gate.inFlight()).toBe(5);
    controller.abort();
    await tick();
    for (const release of gate.pending.splice(0)) release();
    const summary = await done;
    expect(summary.interrupted).toBe(true);
    expect(summary.requests).toBe(5);
    expect(results).toHaveLength(5);
  });

  it('stops when the journal cannot be written, after the requests in flight', async () => {
    let writes = 0;
    const journal = {
      launch: (requests: readonly unknown[]) => requests.map(() => 0),
      result: () => {
        if (++writes === 3) throw new Error('ENOSPC: no space left on device');
      },
    };
    const sent: number[] = [];
    await expect(
      runBulk({
        requests: requestsOf(50),
        send: async (r) => {
          sent.push(r.payload);
          return {};
        },
        concurrency: 2,
        journal,
        signal: new AbortController().signal,
        onResult: () => {},
      }),
    ).rejects.toThrow('ENOSPC');
    expect(sent.length).toBeLessThan(6);
  });

  it('waits for the output to drain before launching more', async () => {
    let waiting: (() => void) | undefined;
    let launched = 0;
    const done = runBulk({
      requests: requestsOf(3),
      send: async () => {
        launched++;
        return {};
      },
      concurrency: 8,
      signal: new AbortController().signal,
      onResult: () => {},
      ready: () => (launched === 1 ? new Promise<void>((resolve) => (waiting = resolve)) : undefined),
    });
    await tick();
    expect(launched).toBe(1);
    waiting!();
    await done;
    expect(launched).toBe(3);
  });
});

describe('runBulk when the service cannot be reached', () => {
  const refused = () => new NetworkError('connection refused', false, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
  const reset = () => new NetworkError('connection reset', true, Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

  it('stops launching after UNREACHABLE_AFTER connection failures in a row, after earlier successes too', async () => {
    const results: BulkResult[] = [];
    const summary = await runBulk({
      requests: requestsOf(500),
      // The first 10 are accepted, then the service is gone.
      send: async (r) => {
        if (r.payload < 10) return { messageId: `m${r.payload}`, status: 'queued' };
        throw r.payload % 2 === 0 ? refused() : reset();
      },
      concurrency: 1,
      signal: new AbortController().signal,
      onResult: (r) => results.push(r),
    });
    expect(UNREACHABLE_AFTER).toBe(5);
    expect(summary.requests).toBe(15);
    expect(summary).toMatchObject({ accepted: 10, interrupted: false, unreachable: { failures: 5, reason: 'connection refused' } });
    // Refused before the request left: rejected. Reset after it left: unknown, never rejected.
    expect(results.slice(10).map((r) => r.outcome)).toEqual(['rejected', 'unknown', 'rejected', 'unknown', 'rejected']);
    expect(summary.rejected).toBe(3);
    expect(summary.unknown).toBe(2);
  });

  it('counts failures only in a row: any answer, even an error status, starts the count again', async () => {
    const summary = await runBulk({
      requests: requestsOf(40),
      // Four refusals, then a 400, over and over: never five in a row.
      send: async (r) => {
        if (r.payload % 5 === 4) throw new ApiError('bad request', { status: 400 });
        throw refused();
      },
      concurrency: 1,
      signal: new AbortController().signal,
      onResult: () => undefined,
    });
    expect(summary).toMatchObject({ requests: 40, rejected: 40, unreachable: undefined });
  });

  it('lets the requests in flight finish and journals each of them', async () => {
    const journaled: JournalRecord[] = [];
    let seq = 0;
    const summary = await runBulk({
      requests: requestsOf(100, undefined, 10),
      send: async () => {
        await tick();
        throw refused();
      },
      concurrency: 8,
      unreachableAfter: 3,
      journal: { launch: (rs) => rs.map(() => ++seq), result: (_n, r) => journaled.push(r) },
      signal: new AbortController().signal,
      onResult: () => undefined,
    });
    expect(summary.unreachable?.failures).toBeGreaterThanOrEqual(3);
    expect(summary.requests).toBeLessThan(100);
    expect(journaled).toHaveLength(summary.requests);
    expect(seq).toBe(summary.requests);
  });
});

describe('runBulk journaling ahead of the wire', () => {
  it('records every request of a launch window in one write before any of them is sent', async () => {
    const events: string[] = [];
    const gate = gatedSend();
    const journal = {
      launch: (requests: readonly { readonly to: readonly string[] }[]) => {
        events.push(`launch ${requests.length}`);
        return requests.map((_, i) => i + 1);
      },
      result: () => undefined,
    };
    const done = runBulk({
      requests: requestsOf(10, undefined, 10),
      send: (r) => {
        events.push(`send ${r.payload}`);
        return gate.send(r);
      },
      concurrency: 4,
      journal,
      signal: new AbortController().signal,
      onResult: () => {},
    });
    await tick();
    expect(events).toEqual(['launch 4', 'send 0', 'send 1', 'send 2', 'send 3']);
    while (events.filter((e) => e.startsWith('send')).length < 10 || gate.pending.length > 0) {
      for (const release of gate.pending.splice(0)) release();
      await tick();
    }
    await done;
    // Each window's launch record comes before its sends.
    let launched = 0;
    for (const event of events) {
      if (event.startsWith('launch')) launched += Number(event.split(' ')[1]);
      else expect(Number(event.split(' ')[1])).toBeLessThan(launched);
    }
    expect(launched).toBe(10);
  });

  it('cuts off the requests in flight when the grace period ends, and journals them unknown', async () => {
    const controller = new AbortController();
    const outcomes: string[] = [];
    let endGrace: (() => void) | undefined;
    const done = runBulk({
      requests: requestsOf(10),
      send: (_r, cutOff) =>
        new Promise((_resolve, reject) => cutOff.addEventListener('abort', () => reject(new InterruptedError('Terminated', 'SIGTERM')), { once: true })),
      concurrency: 3,
      journal: { launch: (r) => r.map((_, i) => i + 1), result: (_n, r) => outcomes.push(r.outcome) },
      signal: controller.signal,
      graceMs: 5000,
      sleep: (ms) => {
        expect(ms).toBe(5000);
        return new Promise<void>((resolve) => (endGrace = resolve));
      },
      onResult: () => {},
    });
    await tick();
    controller.abort(new InterruptedError('Terminated', 'SIGTERM'));
    await tick();
    expect(outcomes).toEqual([]);
    endGrace!();
    const summary = await done;
    expect(outcomes).toEqual(['unknown', 'unknown', 'unknown']);
    expect(summary).toMatchObject({ requests: 3, unknown: 3, interrupted: true });
  });
});

describe('classifyFailure', () => {
  it.each([
    ['an error answer', new ApiError('bad', { status: 400 }), 'rejected', 1],
    ['a 401', new AuthError('no', { status: 401 }), 'rejected', 3],
    ['a connection that failed before sending', new NetworkError('refused', false), 'rejected', 1],
    ['a reset after sending', new NetworkError('reset', true), 'unknown', 1],
    ['an unreadable success answer', new ApiError('not JSON', { status: 200 }), 'unknown', 1],
    ['Ctrl-C between attempts', new InterruptedError(), 'unknown', 130],
    ['anything unexpected', new Error('bug'), 'unknown', 1],
  ])('%s is %s', (_name, error, outcome, exitCode) => {
    const failure = classifyFailure(error);
    expect(failure.outcome).toBe(outcome);
    expect(failure.exitCode).toBe(exitCode);
  });

  it('journals the error fields that are present', () => {
    const record = journalRecordFor({ to: ['+15557000000'], ...classifyFailure(new ApiError('busy', { status: 503, errorCode: 'BUSY' })) });
    expect(record).toEqual({ to: ['+15557000000'], outcome: 'rejected', error: { message: 'busy', status: 503, errorCode: 'BUSY' } });
  });
});
