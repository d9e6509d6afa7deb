import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import type { Recorded } from '../../../optouts/change.js';
import { EVERY_NUMBER, MAX_TEXT, type ConsentChange } from '../../../optouts/log.js';
import { writeJson, writeNdjson } from '../../../output/render.js';
import { numberArg } from '../../events/shared/event-queries.js';
import { describeSender } from './opt-out-list.js';

// What the verbs that change the list share: their numbers, the reason, and the report of what changed.

/** The NUMBER arguments, each E.164 (separators people type are forgiven), each once. */
export function numbersFrom(values: readonly string[]): string[] {
  const numbers = values.flatMap((value) => value.split(',')).map((value) => value.trim()).filter((value) => value !== '');
  if (numbers.length === 0) throw new UsageError('give at least one NUMBER (E.164, such as +14155551001)');
  return [...new Set(numbers.map((value) => numberArg(value, 'NUMBER')))];
}

export function reasonFrom(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError('--reason needs some text, not a blank');
  if (trimmed.length > MAX_TEXT) throw new UsageError(`--reason is ${trimmed.length} characters long; keep it to ${MAX_TEXT}`);
  return trimmed;
}

function changeJson(change: ConsentChange): Record<string, unknown> {
  return { op: change.op, number: change.number, from: change.from === EVERY_NUMBER ? null : change.from, tenant: change.tenant ?? null, at: change.at };
}

/** A line per kind of change made, and one for what was already so; JSON: `{"changed": [...], "unchanged": [...]}`. */
export function reportChanges(ctx: Context, dir: string, recorded: Recorded): void {
  if (recorded.damaged.length > 0) ctx.warn(`${dir}/optouts.ndjson: ${recorded.damaged.length} damaged line(s) skipped`);
  const document = { changed: recorded.made.map(changeJson), unchanged: recorded.unchanged.map(changeJson) };
  if (ctx.globals.output === 'json') return writeJson(ctx, document);
  if (ctx.globals.output === 'ndjson') return writeNdjson(ctx, document);
  const say = (changes: readonly ConsentChange[], made: boolean, stream: 'stdout' | 'stderr'): void => {
    const groups = new Map<string, string[]>();
    for (const change of changes) {
      const key = `${change.op}\u0000${change.from}\u0000${change.tenant ?? ''}`;
      groups.set(key, [...(groups.get(key) ?? []), change.number]);
    }
    for (const [key, numbers] of groups) {
      const [op, from, tenant] = key.split('\u0000') as ['out' | 'in', string, string];
      const list = numbers.length <= 5 ? numbers.join(', ') : `${numbers.slice(0, 5).join(', ')} and ${numbers.length - 5} more`;
      const sender = describeSender(from, tenant === '' ? undefined : tenant);
      const text =
        op === 'out'
          ? made
            ? `Opted out of ${sender}: ${list}`
            : `Already opted out of ${sender}: ${list}`
          : made
            ? `Opted back in to ${sender}${from === EVERY_NUMBER ? '' : ` (and any opt-out of every number ${tenant === '' ? 'kept without a tenant' : `of tenant ${tenant}`} lifted)`}: ${list}`
            : `Not opted out of ${sender}: ${list}`;
      ctx.io[stream].write(`${text}\n`);
    }
  };
  say(recorded.made, true, 'stdout');
  say(recorded.unchanged, false, 'stderr');
}
