import type { Writable } from 'node:stream';
import { control } from '../output/terminal.js';
import type { PaceEvent } from './pace/pacer.js';

// Progress that tells the truth: done out of total, the rate now (over the last few
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
  /** Runs `draw` once after `ms` (default: an unref'd timer); returns what cancels it. */
  later?: (draw: () => void, ms: number) => () => void;
}

function laterByTimer(draw: () => void, ms: number): () => void {
  const timer = setTimeout(draw, ms);
  timer.unref();
  return () => clearTimeout(timer);
}

/** The rate is measured over the last RATE_WINDOW_MS, from samples taken at most every SAMPLE_MS. */
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

/** A wait being told: in full, and short for a narrow terminal. */
interface Wait {
  text: string;
  short: string;
  until: number;
}

/** What the progress line can tell, before it is fitted to the terminal. */
interface LineParts {
  /** `sent/total` */
  done: string;
  accepted: number;
  failed: number;
  skipped: number;
  rate: string;
  eta: string;
  wait: Wait | undefined;
}

/** `throttled (429): waiting 4 s`: the wait, told in fewer words (the progress line on a narrow terminal). */
export function describeWaitShort(event: PaceEvent): string {
  switch (event.type) {
    case 'throttled':
      return `throttled (${event.status}): waiting ${seconds(event.waitMs)}`;
    case 'window-closed':
      return `window closed: waiting until ${event.opensAtText}`;
    case 'window-opened':
      return 'window open: sending';
  }
}

function countsText(p: LineParts, withAccepted: boolean): string {
  const inner = [withAccepted ? `${p.accepted} accepted` : undefined, p.failed > 0 ? `${p.failed} failed` : undefined].filter((x) => x !== undefined);
  return `${p.done} sent${inner.length > 0 ? ` (${inner.join(', ')})` : ''}`;
}

/** The line with everything in it (off a terminal, and on one wide enough). */
function fullLine(p: LineParts): string {
  const skipped = p.skipped > 0 ? `, ${p.skipped} skipped` : '';
  return `${countsText(p, true)}${skipped}, ${p.rate}, ${p.eta}${p.wait !== undefined ? `; ${p.wait.text}` : ''}`;
}

/**
 * The line within `width` characters. What it must shorten, it drops from the least important
 * up: the time left, the rate, the skipped, the accepted count; then it tells the wait in fewer
 * words, then "sent" goes. A wait (a throttle, a closed window) is always shown, since it is why
 * the counts stand still; only a terminal too narrow even for that cuts the line.
 */
export function fitLine(p: LineParts, width: number): string {
  const skipped = p.skipped > 0 ? `, ${p.skipped} skipped` : '';
  const waitText = p.wait !== undefined ? `; ${p.wait.text}` : '';
  const waitShort = p.wait !== undefined ? `; ${p.wait.short}` : '';
  const candidates = [
    fullLine(p),
    `${countsText(p, true)}${skipped}, ${p.rate}${waitText}`,
    `${countsText(p, true)}${skipped}${waitText}`,
    `${countsText(p, true)}${waitText}`,
    `${countsText(p, false)}${waitText}`,
    `${countsText(p, false)}${waitShort}`,
    `${p.done}${waitShort}`,
    p.wait !== undefined ? p.wait.short : p.done,
  ];
  const fits = candidates.find((line) => line.length <= width);
  if (fits !== undefined) return fits;
  const last = candidates[candidates.length - 1]!;
  return `${last.slice(0, width - 1)}…`;
}

export function createSendProgress(options: SendProgressOptions): SendProgress {
  return new ProgressLine(options);
}

/** The rate over the last RATE_WINDOW_MS, from samples taken at most every SAMPLE_MS. */
class RecentRate {
  private readonly samples: { at: number; sent: number }[];

  constructor(started: number) {
    this.samples = [{ at: started, sent: 0 }];
  }

  /** Takes a sample when one is due; the rate per second now. */
  at(time: number, sent: number): number {
    const samples = this.samples;
    const tail = samples[samples.length - 1]!;
    if (time - tail.at >= SAMPLE_MS) {
      samples.push({ at: time, sent });
      while (samples.length > 2 && time - samples[1]!.at >= RATE_WINDOW_MS) samples.shift();
    }
    const head = samples[0]!;
    const span = time - head.at;
    return span >= SAMPLE_MS ? ((sent - head.sent) * 1000) / span : 0;
  }
}

class ProgressLine implements SendProgress {
  private readonly stream: Writable;
  private readonly isTTY: boolean;
  private readonly total: number;
  private readonly now: () => number;
  private readonly columns: number;
  private readonly plainEveryMs: number;
  private readonly drawEveryMs: number;
  private readonly rate: RecentRate;
  private last: ProgressCounts = { accepted: 0, failed: 0, skipped: 0 };
  private lastDraw = -Infinity;
  private lastPlain: number;
  private drawn = false;
  private wait: Wait | undefined;
  private lastThrottleLine = -Infinity;
  private readonly later: (draw: () => void, ms: number) => () => void;
  /** Cancels the draw due for counts that came too soon after the last one. */
  private trailing: (() => void) | undefined;

  constructor(options: SendProgressOptions) {
    this.stream = options.stream;
    this.isTTY = options.isTTY;
    this.total = options.total;
    this.now = options.now;
    this.columns = options.columns;
    this.plainEveryMs = options.plainEveryMs ?? 5_000;
    this.drawEveryMs = options.drawEveryMs ?? 100;
    this.later = options.later ?? laterByTimer;
    const started = this.now();
    this.rate = new RecentRate(started);
    this.lastPlain = started;
  }

  update(counts: ProgressCounts): void {
    this.last = counts;
    const time = this.now();
    const done = counts.accepted + counts.failed;
    if (this.isTTY) {
      if (time - this.lastDraw >= this.drawEveryMs || done >= this.total) this.draw(time);
      else {
        this.rate.at(time, done);
        // Drawn a little later all the same: when the answers stop (the rest held for their
        // window), the line must not stay at the count of the last draw.
        this.trailing ??= this.later(() => {
          this.trailing = undefined;
          this.draw(this.now());
        }, Math.max(1, this.drawEveryMs - (time - this.lastDraw)));
      }
      return;
    }
    if (time - this.lastPlain >= this.plainEveryMs) {
      this.lastPlain = time;
      this.stream.write(`svc send: ${fullLine(this.parts(counts, time))}\n`);
    } else {
      this.rate.at(time, done);
    }
  }

  event(event: PaceEvent): void {
    const time = this.now();
    // `time` is the monotonic clock: a throttle's end is on it too, a window's opening is a wait from now.
    const until = event.type === 'throttled' ? event.until : event.type === 'window-closed' ? time + event.opensInMs : time;
    this.wait = event.type === 'window-opened' ? undefined : { text: describeWait(event), short: describeWaitShort(event), until };
    if (event.type === 'throttled' && this.isTTY) {
      this.draw(time);
      return;
    }
    // Off a terminal, throttles are told at most once per plain interval (a long throttled
    // stretch would otherwise write a line a second).
    if (event.type === 'throttled') {
      if (time - this.lastThrottleLine < this.plainEveryMs) return;
      this.lastThrottleLine = time;
    }
    // A window pause is news worth a line of its own, on a terminal too; so is every throttle
    // off a terminal, where nothing else would show why the run went quiet.
    if (this.drawn) this.stream.write(control('\r\u001b[K'));
    this.drawn = false;
    this.stream.write(`${describeWait(event)}\n`);
    if (this.isTTY) this.draw(time);
  }

  clear(): void {
    this.cancelTrailing();
    if (!this.drawn) return;
    this.stream.write(control('\r\u001b[K'));
    this.drawn = false;
    this.lastDraw = -Infinity;
  }

  /** The parts of the line, most important first (see fitLine). */
  private parts(counts: ProgressCounts, time: number): LineParts {
    // `total` is this run's own recipients (its shard, less exclusions and --resume skips):
    // those left out are told apart, never counted as sent.
    const sent = counts.accepted + counts.failed;
    const rate = this.rate.at(time, sent);
    const left = Math.max(0, this.total - sent);
    const wait = this.wait;
    return {
      done: `${sent}/${this.total}`,
      accepted: counts.accepted,
      failed: counts.failed,
      skipped: counts.skipped,
      rate: `${rate.toFixed(0)}/s`,
      eta: `${rate > 0 ? formatDuration((left / rate) * 1000) : '?'} left`,
      wait: wait !== undefined && time < wait.until ? wait : undefined,
    };
  }

  /** The terminal's width now: the stream's own (stderr's, also after a resize), else the one given. */
  private width(): number {
    const own = (this.stream as { columns?: unknown }).columns;
    return typeof own === 'number' && own > 0 ? own : this.columns;
  }

  private cancelTrailing(): void {
    this.trailing?.();
    this.trailing = undefined;
  }

  private draw(time: number): void {
    this.cancelTrailing();
    // One column short of the width, so that the line never wraps onto a second one.
    this.stream.write(`${control('\r')}${fitLine(this.parts(this.last, time), Math.max(20, this.width() - 1))}${control('\u001b[K')}`);
    this.drawn = true;
    this.lastDraw = time;
  }
}
