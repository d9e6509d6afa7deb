import type { Writable } from 'node:stream';
import type { PaceEvent } from './pace/pacer.js';

// Progress that tells the truth (issue 10): done out of total, the rate now (over the last few
// seconds, not since the start, so that a throttled or paused run does not promise the time it
// had before), the time left at that rate, and what the run is waiting for. On a terminal, one
// line redrawn in place at most every 100 ms; elsewhere (CI logs, a file) a plain line every
// few seconds, so that a long run shows it is alive without flooding the log. Waits are told as
// they begin, on a line of their own off a terminal.

export interface ProgressCounts {
  accepted: number;
  failed: number;
  skipped: number;
}

export interface SendProgress {
  update(counts: ProgressCounts): void;
  event(event: PaceEvent): void;
  /** Erases the terminal line (before other stderr output, and at the end). */
  clear(): void;
}

export interface SendProgressOptions {
  stream: Writable;
  isTTY: boolean;
  columns: number;
  total: number;
  now: () => number;
  /** Off a terminal: a line every this many ms. */
  plainEveryMs?: number;
  drawEveryMs?: number;
}

/** The rate over the last RATE_WINDOW_MS, from samples taken at most every SAMPLE_MS. */
const RATE_WINDOW_MS = 5_000;
const SAMPLE_MS = 250;

/** A duration as 42s, 3m05s or 2h01m ('?' when unknown). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

function seconds(ms: number): string {
  const s = Math.max(1, Math.ceil(ms / 1000));
  return s < 90 ? `${s} s` : formatDuration(ms);
}

export function describeWait(event: PaceEvent): string {
  switch (event.type) {
    case 'throttled':
      return `throttled by the service (${event.status}): waiting ${seconds(event.waitMs)}`;
    case 'window-closed':
      return `outside the send window ${event.windowText}: waiting until ${event.opensAtText}`;
    case 'window-opened':
      return 'the send window is open: sending';
  }
}

export function createSendProgress(options: SendProgressOptions): SendProgress {
  const { stream, isTTY, total, now } = options;
  const plainEveryMs = options.plainEveryMs ?? 5_000;
  const drawEveryMs = options.drawEveryMs ?? 100;
  const started = now();
  const samples: { at: number; sent: number }[] = [{ at: started, sent: 0 }];
  let last: ProgressCounts = { accepted: 0, failed: 0, skipped: 0 };
  let lastDraw = -Infinity;
  let lastPlain = started;
  let drawn = false;
  let wait: { text: string; until: number } | undefined;
  let lastThrottleLine = -Infinity;

  const rateNow = (time: number, sent: number): number => {
    const tail = samples[samples.length - 1]!;
    if (time - tail.at >= SAMPLE_MS) {
      samples.push({ at: time, sent });
      while (samples.length > 2 && time - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    }
    const head = samples[0]!;
    const span = time - head.at;
    return span >= SAMPLE_MS ? ((sent - head.sent) * 1000) / span : 0;
  };

  const text = (counts: ProgressCounts, time: number): string => {
    // `total` is this run's own recipients (its shard, less exclusions and --resume skips):
    // those left out are told apart, never counted as sent.
    const sent = counts.accepted + counts.failed;
    const rate = rateNow(time, sent);
    const left = Math.max(0, total - sent);
    const eta = rate > 0 ? formatDuration((left / rate) * 1000) : '?';
    const waiting = wait !== undefined && time < wait.until ? `; ${wait.text}` : '';
    return (
      `${sent}/${total} sent (${counts.accepted} accepted` +
      (counts.failed > 0 ? `, ${counts.failed} failed` : '') +
      `)${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ''}, ${rate.toFixed(0)}/s, ${eta} left${waiting}`
    );
  };

  const draw = (time: number): void => {
    const line = text(last, time);
    const width = Math.max(20, options.columns - 1);
    stream.write(`\r${line.length > width ? `${line.slice(0, width - 1)}…` : line}\u001b[K`);
    drawn = true;
    lastDraw = time;
  };

  return {
    update(counts) {
      last = counts;
      const time = now();
      const done = counts.accepted + counts.failed;
      if (isTTY) {
        if (time - lastDraw >= drawEveryMs || done >= total) draw(time);
        else rateNow(time, counts.accepted + counts.failed);
        return;
      }
      if (time - lastPlain >= plainEveryMs) {
        lastPlain = time;
        stream.write(`svc send: ${text(counts, time)}\n`);
      } else {
        rateNow(time, counts.accepted + counts.failed);
      }
    },
    event(event) {
      const time = now();
      const until = event.type === 'throttled' ? event.until : event.type === 'window-closed' ? event.opensAt : time;
      wait = event.type === 'window-opened' ? undefined : { text: describeWait(event), until };
      if (event.type === 'throttled' && isTTY) {
        draw(time);
        return;
      }
      // Off a terminal, throttles are told at most once per plain interval (a long throttled
      // stretch would otherwise write a line a second).
      if (event.type === 'throttled') {
        if (time - lastThrottleLine < plainEveryMs) return;
        lastThrottleLine = time;
      }
      // A window pause is news worth a line of its own, on a terminal too; so is every throttle
      // off a terminal, where nothing else would show why the run went quiet.
      if (drawn) stream.write('\r\u001b[K');
      drawn = false;
      stream.write(`${describeWait(event)}\n`);
      if (isTTY) draw(time);
    },
    clear() {
      if (!drawn) return;
      stream.write('\r\u001b[K');
      drawn = false;
      lastDraw = -Infinity;
    },
  };
}
