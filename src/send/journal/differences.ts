// Why a journal belongs to another run: what `--resume` says when it refuses one.

import type { JournalRun } from './format.js';

/** Where a journal's run and this one differ, in words; empty when they are the same run. */
export function runDifferences(journal: JournalRun, current: JournalRun): string[] {
  const differences: string[] = [];
  if (journal.from !== current.from) differences.push(`it sent from ${journal.from}, this run from ${current.from}`);
  if (journal.body !== current.body) differences.push('its message body (or template) was different');
  if (journal.recipients !== current.recipients) {
    differences.push(`its recipients were different (${journal.recipientCount} then, ${current.recipientCount} now)`);
  }
  if (journal.media.length !== current.media.length || journal.media.some((m, i) => current.media[i] !== m)) {
    differences.push('its media were different');
  }
  return differences;
}
