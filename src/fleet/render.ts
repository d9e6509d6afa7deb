// The plan for people: one `+`, `~`, `-` or `!` line per change and one indented line per field,
// coloured by the palette it is given (plain when piped), then a one-line count. For programs
// the plan is JSON: {"changes": [...], "inSync": bool}.

import { plainPalette, type Palette } from '../output/palette.js';
import type { Change, Plan } from './plan.js';

function value(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

function heading(change: Change): { sign: string; text: string } {
  switch (change.action) {
    case 'create-tenant':
      return { sign: '+', text: `tenant ${change.target} (create)` };
    case 'update-tenant':
      return { sign: '~', text: `tenant ${change.target}` };
    case 'provision': {
      const how = change.inFlight ? 'its order is in flight: waited for, not ordered again' : change.retry !== undefined ? `provision again: ${change.retry}` : 'provision';
      return { sign: '+', text: `number ${change.target} (${how})` };
    }
    case 'update-number':
      return { sign: '~', text: `number ${change.target}` };
    case 'unprovision':
      return { sign: '-', text: `number ${change.target} (unprovision from tenant ${change.tenant ?? '?'}: not in the file)` };
    case 'blocked':
      return { sign: '!', text: `number ${change.target} blocked: ${change.reason ?? ''}` };
  }
}

export function planLines(plan: Plan, palette: Palette = plainPalette): string[] {
  const lines: string[] = [];
  const tone = (sign: string, text: string): string =>
    sign === '+' ? palette.green(text) : sign === '~' ? palette.yellow(text) : sign === '-' ? palette.red(text) : palette.bold(palette.red(text));
  for (const change of plan.changes) {
    const { sign, text } = heading(change);
    lines.push(tone(sign, `${sign} ${text}`));
    for (const [path, field] of Object.entries(change.fields)) {
      if (change.action === 'blocked') lines.push(`    ${path}: ${value(field.from)} live, ${value(field.to)} in the file`);
      else if (field.from === null) lines.push(tone('+', `    + ${path}: ${value(field.to)}`));
      else lines.push(tone('~', `    ~ ${path}: ${value(field.from)} -> ${value(field.to)}`));
    }
  }
  return lines;
}

function count(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** One line: what the plan would do, or that nothing would change. */
export function planSummary(plan: Plan, file: string): string {
  if (plan.inSync) return `No changes: the live state matches ${file}.`;
  const by = (action: Change['action']): Change[] => plan.changes.filter((c) => c.action === action);
  const parts: string[] = [];
  const created = by('create-tenant').length;
  const updated = by('update-tenant').length;
  if (created > 0) parts.push(`${count(created, 'tenant')} to create`);
  if (updated > 0) parts.push(`${count(updated, 'tenant')} to update`);
  const provision = by('provision');
  const inFlight = provision.filter((c) => c.inFlight).length;
  const ordered = provision.length - inFlight;
  if (ordered > 0) parts.push(`${count(ordered, 'number')} to provision in ${count(plan.orders.length, 'order')}`);
  if (inFlight > 0) parts.push(`${count(inFlight, 'number')} in orders already in flight`);
  const numberUpdates = by('update-number').length;
  if (numberUpdates > 0) parts.push(`${count(numberUpdates, 'number')} to update`);
  const released = by('unprovision').length;
  if (released > 0) parts.push(`${count(released, 'number')} to unprovision`);
  const blocked = by('blocked').length;
  if (blocked > 0) parts.push(`${count(blocked, 'change')} blocked`);
  return `Plan: ${parts.join(', ')}.`;
}

/** What is sent but not compared, said once (stderr). */
export function notComparedNotes(plan: Plan, secretKeys: readonly string[], updateSecrets: boolean): string[] {
  const notes: string[] = [];
  if (plan.notCompared.length > 0) {
    notes.push(`Not compared: ${plan.notCompared.join(', ')} (sent when a number is provisioned, never compared afterwards).`);
  }
  if (secretKeys.length > 0) {
    notes.push(
      `Secrets (${secretKeys.join(', ')}) are hidden by the service on read and never compared: apply sends them when it creates a tenant` +
        (updateSecrets ? ', and to every tenant of the file now (--update-secrets).' : ', and to existing tenants only with --update-secrets.'),
    );
  }
  return notes;
}

export function planJson(plan: Plan): { changes: Change[]; inSync: boolean } {
  return { changes: plan.changes, inSync: plan.inSync };
}
