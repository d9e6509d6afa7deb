import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalText } from '../../src/output/terminal.js';
import { createSendProgress, formatDuration } from '../../src/send/progress.js';

function capture(columns?: number): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  // A terminal's stream knows its width (stderr's own, which may differ from stdout's).
  if (columns !== undefined) Object.assign(stream, { columns });
  let text = '';
  // What reaches the terminal: the run's stderr is the output boundary, which writes svc's own
  // sequences (the carriage return, erase to the end of the line) as they are.
  stream.on('data', (c: Buffer) => (text += terminalText(c.toString())));
  return { stream, text: () => text };
}

describe('send progress', () => {
  it('formats durations as seconds, minutes and hours', () => {
    expect(formatDuration(42_000)).toBe('42s');
    expect(formatDuration(125_000)).toBe('2m05s');
    expect(formatDuration(3_600_000 * 2 + 60_000)).toBe('2h01m');
    expect(formatDuration(Number.NaN)).toBe('?');
  });


  it('on a terminal: sent/total, the rate now, the time left, and a throttle wait', () => {
    const out = capture();
    let time = 0;
    const progress = createSendProgress({ stream: out.stream, isTTY: true, columns: 200, total: 1000, now: () => time });
    for (let i = 1; i <= 100; i++) {
      time += 10;
      progress.update({ accepted: i, failed: 0, skipped: 0 });
    }
    expect(out.text()).toContain('\r91/1000 sent (91 accepted), 100/s, 9s left');
    progress.event({ type: 'throttled', status: 429, waitMs: 4000, until: time + 4000, retryAfterGiven: true });
    expect(out.text()).toMatch(/throttled by the service \(429\): waiting 4 s\u001b\[K$/);
    progress.clear();
    expect(out.text().endsWith('\r\u001b[K')).toBe(true);
  });

  it('draws the last counts a moment later when they came too soon after a draw and no more come (the rest held for their window)', () => {
    const out = capture();
    let time = 0;
    const due: { draw: () => void; ms: number; cancelled: boolean }[] = [];
    const later = (draw: () => void, ms: number): (() => void) => {
      const entry = { draw, ms, cancelled: false };
      due.push(entry);
      return () => {
        entry.cancelled = true;
      };
    };
    const progress = createSendProgress({ stream: out.stream, isTTY: true, columns: 200, total: 8, now: () => time, later });
    time = 1000;
    progress.update({ accepted: 1, failed: 0, skipped: 1 });
    for (let i = 2; i <= 7; i++) {
      time += 5;
      progress.update({ accepted: i, failed: 0, skipped: 1 });
    }
    // One draw is due, not one per update: 70 ms after the last draw's 1000 + 100.
    expect(due).toHaveLength(1);
    expect(due[0]!.ms).toBe(95);
    expect(out.text()).not.toContain('7/8 sent');
    time += 200;
    due[0]!.draw();
    expect(out.text()).toContain('\r7/8 sent (7 accepted), 1 skipped');
    // Cleared before other lines (and at the end): nothing is drawn over them later.
    time += 5;
    progress.update({ accepted: 7, failed: 0, skipped: 2 });
    expect(due).toHaveLength(2);
    progress.clear();
    expect(due[1]!.cancelled).toBe(true);
  });

  it('counts out of this run\'s own recipients, and tells the skipped apart, never as sent', () => {
    const out = capture();
    let time = 0;
    const progress = createSendProgress({ stream: out.stream, isTTY: true, columns: 200, total: 141, now: () => time });
    time += 1000;
    progress.update({ accepted: 49, failed: 0, skipped: 161 });
    expect(out.text()).toContain('\r49/141 sent (49 accepted), 161 skipped, ');
  });

  it('off a terminal: a plain line every few seconds, and a line when the window closes', () => {
    const out = capture();
    let time = 0;
    const progress = createSendProgress({ stream: out.stream, isTTY: false, columns: 80, total: 50, now: () => time });
    for (let i = 1; i <= 50; i++) {
      time += 250;
      progress.update({ accepted: i, failed: 0, skipped: 0 });
    }
    const lines = out.text().trim().split('\n');
    expect(lines).toHaveLength(2); // at 5 s and at 10 s
    expect(lines[0]).toBe('svc send: 20/50 sent (20 accepted), 4/s, 8s left');
    expect(out.text()).not.toContain('\r');
    progress.event({ type: 'window-closed', opensAt: time + 3_600_000, opensInMs: 3_600_000, opensAtText: '2026-11-24 09:00 Europe/Berlin', windowText: '09:00-20:00' });
    expect(out.text().trim().split('\n').at(-1)).toBe('outside the send window 09:00-20:00: waiting until 2026-11-24 09:00 Europe/Berlin');
    progress.event({ type: 'throttled', status: 503, waitMs: 2000, until: time + 2000, retryAfterGiven: true });
    progress.event({ type: 'throttled', status: 503, waitMs: 2000, until: time + 2000, retryAfterGiven: true });
    expect(out.text().match(/throttled by the service/g)).toHaveLength(1);
  });

  describe('on a terminal of any width, the throttle wait always shows', () => {
    /** The line as last drawn: after the last carriage return, before the erase to the end of the line. */
    const lastLine = (text: string): string => text.slice(text.lastIndexOf('\r') + 1).replace(/\u001b\[K$/, '');

    function throttledAt(columns: number): string {
      // The stream's own width: what the terminal has, whatever was guessed from stdout.
      const out = capture(columns);
      let time = 0;
      const progress = createSendProgress({ stream: out.stream, isTTY: true, columns: 80, total: 10000, now: () => time });
      for (let i = 1; i <= 100; i++) {
        time += 10;
        progress.update({ accepted: i > 95 ? i - 1 : i, failed: i > 95 ? 1 : 0, skipped: 1234 });
      }
      progress.event({ type: 'throttled', status: 429, waitMs: 4000, until: time + 4000, retryAfterGiven: true });
      return lastLine(out.text());
    }

    it('120 columns: everything, the wait in full', () => {
      const line = throttledAt(120);
      expect(line).toBe('100/10000 sent (99 accepted, 1 failed), 1234 skipped, 100/s, 1m39s left; throttled by the service (429): waiting 4 s');
      expect(line.length).toBeLessThan(120);
    });

    it('80 columns: the time left, the rate and the other counts go first, the wait stays whole', () => {
      const line = throttledAt(80);
      expect(line.length).toBeLessThan(80);
      expect(line).toBe('100/10000 sent (1 failed); throttled by the service (429): waiting 4 s');
    });

    it('40 columns: the wait in fewer words, after the count', () => {
      const line = throttledAt(40);
      expect(line.length).toBeLessThan(40);
      expect(line).toBe('100/10000; throttled (429): waiting 4 s');
    });

    it('without a wait, a narrow terminal keeps the count and drops the rest', () => {
      const out = capture(40);
      let time = 0;
      const progress = createSendProgress({ stream: out.stream, isTTY: true, columns: 200, total: 10000, now: () => time });
      time += 1000;
      progress.update({ accepted: 42, failed: 3, skipped: 7 });
      const line = lastLine(out.text());
      expect(line).toBe('45/10000 sent (42 accepted, 3 failed)');
    });
  });
});
