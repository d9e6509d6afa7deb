// A plan saved by `svc diff --out PLAN.json`, for `svc apply --plan`: the changes as planned and
// the desired state they were planned from (secrets as references, never values), so that apply
// can plan again against the live state of the moment and refuse when anything moved.

import { UsageError } from '../errors.js';
import { parseJsonText } from '../input/json.js';
import { readTextFile } from '../input/files.js';
import { cannotWrite } from '../input/file-errors.js';
import { writeFileAtomic } from '../domain/files/atomic-write.js';
import type { DesiredFleet } from './model.js';
import type { Change, Plan } from './plan.js';

export const SAVED_PLAN_KIND = 'svc-fleet-plan';
export const SAVED_PLAN_VERSION = 1;

export interface SavedPlan {
  kind: typeof SAVED_PLAN_KIND;
  version: number;
  /** The fleet file it was planned from, as named then. */
  file: string;
  /** The service it was planned against. */
  baseUrl: string;
  prune: boolean;
  fleet: DesiredFleet;
  changes: Change[];
  inSync: boolean;
}

export function savedPlanOf(plan: Plan, fleet: DesiredFleet, context: { file: string; baseUrl: string; prune: boolean }): SavedPlan {
  return { kind: SAVED_PLAN_KIND, version: SAVED_PLAN_VERSION, ...context, fleet, changes: plan.changes, inSync: plan.inSync };
}

export async function writeSavedPlan(path: string, saved: SavedPlan): Promise<void> {
  // Whole or not at all: a CI job that reads the plan never sees half of one.
  try {
    await writeFileAtomic(path, `${JSON.stringify(saved, null, 2)}\n`);
  } catch (error) {
    throw cannotWrite('--out', path, error);
  }
}

export async function readSavedPlan(path: string): Promise<SavedPlan> {
  const data = parseJsonText(await readTextFile(path, '--plan'), path) as Partial<SavedPlan> | null;
  if (data === null || typeof data !== 'object' || data.kind !== SAVED_PLAN_KIND) {
    throw new UsageError(`${path} is not a plan saved by \`svc diff --out\``);
  }
  if (data.version !== SAVED_PLAN_VERSION) throw new UsageError(`${path}: plan version ${String(data.version)} is not known; this svc reads version ${SAVED_PLAN_VERSION}`);
  if (!Array.isArray(data.changes) || typeof data.fleet !== 'object' || data.fleet === null || !Array.isArray(data.fleet.tenants) || !Array.isArray(data.fleet.numbers)) {
    throw new UsageError(`${path}: the plan is incomplete (no changes or fleet); save it again with \`svc diff --out\``);
  }
  return data as SavedPlan;
}

/** What differs between the saved changes and those planned now, one line each; empty when none moved. */
export function planMoves(saved: readonly Change[], now: readonly Change[]): string[] {
  const key = (c: Change): string => `${c.action} ${c.target}`;
  const before = new Map(saved.map((c) => [key(c), c]));
  const after = new Map(now.map((c) => [key(c), c]));
  const moves: string[] = [];
  for (const [k, c] of before) {
    const current = after.get(k);
    if (current === undefined) moves.push(`${k}: planned, but no longer needed or now a different change`);
    else if (JSON.stringify(current.fields) !== JSON.stringify(c.fields)) moves.push(`${k}: its fields moved since the plan was made`);
  }
  for (const k of after.keys()) if (!before.has(k)) moves.push(`${k}: needed now, but not in the plan`);
  return moves;
}
