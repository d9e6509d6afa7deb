import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import type { TriggerResult } from '../../../api/sandbox.js';
import { writeObject } from '../../../output/render.js';
import type { CommandInput } from '../../spec.js';

// What every `svc sandbox trigger ...` shares: `--set FIELD=VALUE` overrides (the named flags are
// shorthands for them; both for one field is a usage error), and the printing of what was queued.
// (The sandbox-only 404 in the user's terms is sandbox-only.ts.)

const FIELD = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A --set value: JSON when it reads as JSON (numbers, true, null, "quoted", [..], {..}), else the text. */
export function overrideValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * The payload overrides of a trigger: every `--set FIELD=VALUE`, then each named flag that was
 * given (`shorthands` maps a payload field to its flag and value).
 */
export function overridesFrom(
  input: CommandInput<'set'>,
  shorthands: Record<string, { flag: string; value: unknown }>,
  /** false: the named flags travel as request fields of their own; only check they do not clash. */
  apply = true,
): Record<string, unknown> {
  const set: Record<string, unknown> = {};
  for (const item of input.strings('set')) {
    const eq = item.indexOf('=');
    const field = eq < 0 ? item : item.slice(0, eq);
    if (eq < 0 || !FIELD.test(field)) {
      throw new UsageError(`--set "${item}" must be FIELD=VALUE, FIELD a payload field name (like --set errorCode=E30008)`);
    }
    if (Object.prototype.hasOwnProperty.call(set, field)) throw new UsageError(`--set ${field}=... is given twice; give it once`);
    set[field] = overrideValue(item.slice(eq + 1));
  }
  for (const [field, { flag, value }] of Object.entries(shorthands)) {
    if (value === undefined) continue;
    if (Object.prototype.hasOwnProperty.call(set, field)) {
      throw new UsageError(`${flag} and --set ${field}=... both set ${field}; ${flag} is a shorthand for --set ${field}=..., give one of them`);
    }
    if (apply) set[field] = value;
  }
  return set;
}

/** Prints what the trigger queued (all of it with --json), and on stderr whether a webhook went out. */
export async function reportTrigger(ctx: Context, result: TriggerResult, title: string): Promise<void> {
  if (ctx.globals.output !== 'table') await writeObject(ctx, result);
  else await writeObject(ctx, { deliveryId: result.deliveryId, event: result.event, ...result.payload }, { title });
  if (result.deliveryId === null) {
    ctx.io.stderr.write(
      `No webhook was sent: the tenant has no webhook URI, or its event filter (webhookEventType) leaves out ${result.event} (svc tenant update ID --webhook-event-type All).\n`,
    );
  } else {
    ctx.io.stderr.write(`${result.event} webhook queued for the tenant (delivery ${result.deliveryId}); see it with svc sandbox webhooks list.\n`);
  }
}

/** Reads `input.string(name)` only when the user gave it. */
export function given<N extends string>(input: CommandInput<N>, name: N): string | undefined {
  return input.has(name) ? input.string(name) : undefined;
}
