import type { Writable } from 'node:stream';

// The bulk-send progress line on stderr (only on a TTY): done out of total, failed, rate, ETA.
// Redrawn at most every `intervalMs`, with \r and an erase-to-end-of-line, so that it costs
// nothing measurable beside the requests themselves.

export interface ProgressCounts {
  accepted: number;
  failed: number;
  skipped: number;
}

export interface ProgressLine {
  update(counts: ProgressCounts): void;
  /** Erases the line (before other stderr output, and at the end). */
  clear(): void;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '?';
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

export function renderProgress(counts: ProgressCounts, total: number, elapsedMs: number, width: number): string {
  const done = counts.accepted + counts.failed + counts.skipped;
  const sentNow = counts.accepted + counts.failed;
  const rate = elapsedMs > 0 ? (sentNow * 1000) / elapsedMs : 0;
  const remaining = Math.max(0, total - done);
  const eta = rate > 0 ? formatDuration((remaining / rate) * 1000) : '?';
  const fraction = total > 0 ? Math.min(1, done / total) : 1;
  const text =
    ` ${done}/${total} sent ${counts.accepted} failed ${counts.failed}` +
    (counts.skipped > 0 ? ` skipped ${counts.skipped}` : '') +
    ` ${rate.toFixed(0)}/s ETA ${eta}`;
  const barWidth = Math.max(0, Math.min(30, width - text.length - 3));
  const filled = Math.round(fraction * barWidth);
  const bar = barWidth > 0 ? `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}]` : '';
  return `${bar}${text}`;
}

export function createProgressLine(stream: Writable, total: number, now: () => number, width: number, intervalMs = 100): ProgressLine {
  const started = now();
  let lastDraw = -Infinity;
  let drawn = false;
  return {
    update(counts) {
      const time = now();
      const done = counts.accepted + counts.failed + counts.skipped;
      if (time - lastDraw < intervalMs && done < total) return;
      lastDraw = time;
      stream.write(`\r${renderProgress(counts, total, time - started, width)}\u001b[K`);
      drawn = true;
    },
    clear() {
      if (!drawn) return;
      stream.write('\r\u001b[K');
      drawn = false;
      lastDraw = -Infinity;
    },
  };
}
