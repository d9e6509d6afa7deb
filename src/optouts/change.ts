import { appendOptOutChanges, type ConsentChange } from './log.js';
import { OptOutList } from './list.js';

// Recording changes: read the list as it stands, keep only the changes that alter it (a second
// STOP, or START from someone not opted out, adds nothing), and append those in one durable write.

export interface Recorded {
  /** The changes written, in order. */
  made: ConsentChange[];
  /** The changes that would have altered nothing. */
  unchanged: ConsentChange[];
  /** Lines of the log that could not be read. */
  damaged: number[];
}

export function recordConsentChanges(dir: string, changes: readonly ConsentChange[]): Recorded {
  const { list, damaged } = OptOutList.read(dir);
  const made: ConsentChange[] = [];
  const unchanged: ConsentChange[] = [];
  for (const change of changes) {
    if (list.changes(change)) {
      list.apply(change);
      made.push(change);
    } else unchanged.push(change);
  }
  appendOptOutChanges(dir, made);
  return { made, unchanged, damaged };
}
