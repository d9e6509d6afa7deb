import { afterEach, describe, expect, it, vi } from 'vitest';
import { TickScheduler } from '../../src/sandbox/scheduler.js';
import { isMultipartForm, readFormFile } from '../../src/sandbox/multipart.js';
import { timeSpan } from '../../src/sandbox/routes/health.js';
import { friendlyName } from '../../src/sandbox/routes/numbers.js';
import { parseUserSpec } from '../../src/sandbox/index.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('TickScheduler', () => {
  it('runs tasks in due order (ties in insertion order) with one timer, and nothing after close', () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const ran: string[] = [];
    const scheduler = new TickScheduler();
    const note = (label: string): void => {
      ran.push(label);
    };
    scheduler.at(1_000_300, note, 'c');
    scheduler.at(1_000_100, note, 'a');
    scheduler.at(1_000_100, note, 'b');
    scheduler.at(1_000_900, note, 'late');
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(99);
    expect(ran).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(ran).toEqual(['a', 'b']);
    vi.advanceTimersByTime(200);
    expect(ran).toEqual(['a', 'b', 'c']);
    // A task may schedule another, earlier than the armed one.
    scheduler.at(1_000_350, (s: string) => {
      ran.push(s);
      scheduler.at(1_000_360, note, 'child');
    }, 'parent');
    vi.advanceTimersByTime(100);
    expect(ran).toEqual(['a', 'b', 'c', 'parent', 'child']);
    expect(scheduler.size).toBe(1);
    scheduler.close();
    vi.advanceTimersByTime(10_000);
    expect(ran).not.toContain('late');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps going when a task throws, and reports the error', () => {
    vi.useFakeTimers({ now: 0 });
    const errors: unknown[] = [];
    const ran: number[] = [];
    const scheduler = new TickScheduler((e) => errors.push(e));
    scheduler.at(10, () => {
      throw new Error('boom');
    }, null);
    scheduler.at(10, (n: number) => ran.push(n), 2);
    vi.advanceTimersByTime(10);
    expect(ran).toEqual([2]);
    expect(errors).toHaveLength(1);
    scheduler.close();
  });

  it('never asks setTimeout for more than it can wait (a longer delay would fire at once, in a loop)', () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    const scheduler = new TickScheduler();
    try {
      // --order-delay 86400000 --time-scale 0.01: an A2P order completes after 500 days.
      scheduler.at(Date.now() + 432_000_000_000, () => {}, null);
      const delays = spy.mock.calls.map((call) => Number(call[1]));
      expect(delays.length).toBeGreaterThan(0);
      expect(Math.max(...delays)).toBeLessThanOrEqual(2 ** 31 - 1);
    } finally {
      scheduler.close();
      spy.mockRestore();
    }
  });

  it('orders many random tasks correctly', () => {
    vi.useFakeTimers({ now: 0 });
    const scheduler = new TickScheduler();
    const ran: number[] = [];
    const dues = Array.from({ length: 500 }, (_, i) => (i * 7919) % 1000);
    for (const due of dues) scheduler.at(due * 10, (d: number) => ran.push(d), due);
    vi.advanceTimersByTime(20_000);
    expect(ran).toEqual([...dues].sort((a, b) => a - b));
    scheduler.close();
  });
});

describe('multipart reader', () => {
  const boundary = '----svc-boundary';
  const type = `multipart/form-data; boundary="${boundary}"`;

  it('reads a field as a file, with an escaped name and binary content, or as a plain value', async () => {
    const binary = Buffer.from([0, 13, 10, 45, 45, 255]);
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="my %22loa%22.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      binary,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    expect(isMultipartForm(type)).toBe(true);
    expect(isMultipartForm('multipart/form-data')).toBe(false);
    expect(isMultipartForm('application/json')).toBe(false);
    expect(isMultipartForm(undefined)).toBe(false);
    const file = await readFormFile(body, type, 'file');
    expect(file?.fileName).toBe('my "loa".pdf');
    expect(file?.contentType).toBe('application/pdf');
    expect(file?.data.equals(binary)).toBe(true);
    const note = await readFormFile(body, type, 'note');
    expect(note).toEqual({ fileName: undefined, contentType: undefined, data: Buffer.from('hello') });
    expect(await readFormFile(body, type, 'missing')).toBeUndefined();
  });

  it('answers a 400 for a body that is not terminated or has no part', async () => {
    const unterminated = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"\r\n\r\nabc`);
    await expect(readFormFile(unterminated, type, 'file')).rejects.toMatchObject({ status: 400, message: /not a readable multipart/ });
    await expect(readFormFile(Buffer.from('nothing here'), type, 'file')).rejects.toMatchObject({ status: 400 });
  });
});

describe('small formats', () => {
  it('writes .NET time spans', () => {
    expect(timeSpan(1.2345)).toBe('00:00:00.0012345');
    expect(timeSpan(3_723_004.5)).toBe('01:02:03.0045000');
    expect(timeSpan(0)).toBe('00:00:00.0000000');
  });

  it('formats friendly names', () => {
    expect(friendlyName('+14155550100')).toBe('(415) 555-0100');
    expect(friendlyName('+447700900123')).toBe('+447700900123');
  });

  it('parses --user EMAIL:PASSWORD, the password may hold colons', () => {
    expect(parseUserSpec('a@b.c:pa:ss')).toEqual({ email: 'a@b.c', password: 'pa:ss' });
    expect(() => parseUserSpec('a@b.c')).toThrow();
    expect(() => parseUserSpec(':x')).toThrow();
    expect(() => parseUserSpec('a@b.c:')).toThrow();
  });
});

describe('startSandbox options', () => {
  it('refuses out-of-range options before listening', async () => {
    const { startSandbox } = await import('../../src/sandbox/index.js');
    await expect(startSandbox({ port: 0, faults: 1.5 })).rejects.toThrow(/faults/);
    await expect(startSandbox({ port: 0, timeScale: 0 })).rejects.toThrow(/timeScale/);
    await expect(startSandbox({ port: 0, orderDelayMs: -1 })).rejects.toThrow(/orderDelayMs/);
    await expect(startSandbox({ port: 70_000 })).rejects.toThrow(/port/);
  });
});
