// A fleet file from disk to a checked desired state, or exit 2 naming every problem.

import { readTextFile } from '../input/files.js';
import { parseFleetText, problemsError, quickFleetSource } from './file.js';
import type { DesiredFleet } from './model.js';
import { validateFleet } from './validate.js';

export async function loadFleetFile(path: string): Promise<DesiredFleet> {
  const text = await readTextFile(path, '--file');
  return fleetFromText(text, path);
}

export async function fleetFromText(text: string, file: string): Promise<DesiredFleet> {
  const quick = await quickFleetSource(text, file);
  if (quick !== undefined) {
    const { fleet, problems } = validateFleet(quick);
    if (problems.length === 0) return fleet;
  }
  // A problem to place (or text the quick reader refused): read again, keeping every position.
  const source = await parseFleetText(text, file);
  const { fleet, problems } = validateFleet(source);
  if (problems.length > 0) throw problemsError(file, problems);
  return fleet;
}

/** The secret keys the file references, for the note that says they are not compared. */
export function secretKeysOf(fleet: DesiredFleet): string[] {
  const keys = new Set<string>();
  for (const tenant of fleet.tenants) {
    for (const [key, value] of Object.entries(tenant.settings ?? {})) if (typeof value === 'object') keys.add(key);
  }
  return [...keys].sort();
}
