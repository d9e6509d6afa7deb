import { UsageError } from '../errors.js';
import type { Output } from './format.js';
import type { Prompter } from './prompts.js';

// Asking for what is missing, and confirming what cannot be undone, only when a person is at a
// terminal: stdin, stdout and stderr are terminals, CI is not set and the output is for people
// (not --json or ndjson). Anywhere else the command fails at once with a message naming the flag
// (and the environment variable) that supplies the value, or --yes for a confirmation.

/** What asking needs: the output (a terminal? for people?), whether --yes was given, and a prompter. */
export interface Asking extends Output {
  /** -y/--yes: do not ask for confirmation. */
  readonly assumeYes: boolean;
  /** Built on the first question only. */
  prompter(): Promise<Prompter>;
}

/** What a missing value is called and how it is given without a terminal. */
export interface MissingValue {
  /** What it is, for the message: "the tenant", "the message body". */
  what: string;
  /** How to give it: "--tenant GUID", "NUMBER". */
  flag: string;
  /** The environment variable that also supplies it, if any. */
  env?: string;
  /** One more line of advice. */
  hint?: string;
  /** False when nothing would ask for it on a terminal either. */
  asked?: boolean;
}

export interface Choice {
  name: string;
  value: string;
  description?: string;
}

/** A person is there to be asked. */
export function canAsk(out: Output): boolean {
  return out.io.canPrompt && out.io.stdinIsTTY && out.io.stdoutIsTTY && out.format === 'table';
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The one wording of a missing value, everywhere. */
export function missingValueError(missing: MissingValue, why = ''): UsageError {
  const how = missing.env ? `give ${missing.flag} or set ${missing.env}` : `give ${missing.flag}`;
  const hints = [...(missing.hint ? [missing.hint] : []), ...(missing.asked === false ? [] : ['On a terminal, svc asks for it.'])];
  return new UsageError(`${capitalize(missing.what)} is missing${why}: ${how}`, hints);
}

/** Why a prompt was not shown, appended to the message so that a user at a terminal sees why. */
export function whyNotAsked(out: Output): string {
  if (out.format !== 'table') return ` (not asked with --${out.format === 'json' ? 'json' : 'output ndjson'})`;
  return '';
}

/** How a list question starts, and what to say when the list is empty. */
export interface ChoiceOptions {
  /** Which choice the cursor starts on (the current one, when there is one). */
  isDefault?: (value: string) => boolean;
  /** Said instead of the missing-value error when there is nothing to choose from. */
  empty?: { message: string; hint?: string };
}

/** A value chosen from a list looked up for the purpose; fails naming the flag without a terminal. */
export async function askChoice(ctx: Asking, missing: MissingValue, message: string, load: () => Promise<Choice[]>, options: ChoiceOptions = {}): Promise<string> {
  if (!canAsk(ctx)) throw missingValueError(missing, whyNotAsked(ctx));
  const choices = await load();
  if (choices.length === 0) {
    // At a terminal already: "svc asks for it" would send the user in a circle.
    if (options.empty) throw new UsageError(options.empty.message, options.empty.hint ? [options.empty.hint] : []);
    throw missingValueError({ ...missing, asked: false }, ' and there is nothing to choose from');
  }
  const preselected = options.isDefault ? choices.find((c) => options.isDefault!(c.value))?.value : undefined;
  const prompter = await ctx.prompter();
  if (prompter.select) return prompter.select(message, choices, preselected !== undefined ? { default: preselected } : {});
  const listed = choices.map((c) => c.value).join(', ');
  return prompter.input(`${message} (${listed})`, {
    ...(preselected !== undefined ? { default: preselected } : {}),
    validate: (value) => (choices.some((c) => c.value === value.trim()) ? true : `one of ${listed}`),
  });
}

/** A value typed in; fails naming the flag without a terminal. */
export async function askText(ctx: Asking, missing: MissingValue, message: string, validate?: (value: string) => true | string): Promise<string> {
  if (!canAsk(ctx)) throw missingValueError(missing, whyNotAsked(ctx));
  const prompter = await ctx.prompter();
  return (await prompter.input(message, validate ? { validate } : {})).trim();
}

/** Declining is not an interruption: nothing was done, exit 2. */
export class DeclinedError extends UsageError {
  constructor() {
    super('Nothing was done.');
  }
}

/**
 * Confirms an action that cannot be undone. `action` says what will happen ("release 3 numbers of
 * tenant X"). --yes skips the question; without a terminal --yes is required.
 */
export async function confirmAction(ctx: Asking, action: string, options: { yes?: boolean } = {}): Promise<void> {
  if (options.yes === true || ctx.assumeYes) return;
  if (!canAsk(ctx)) {
    throw new UsageError(`This would ${action}, which cannot be undone: give --yes (-y) to do it without being asked${whyNotAsked(ctx)}`);
  }
  const prompter = await ctx.prompter();
  if (!(await prompter.confirm(`${capitalize(action)}?`, false))) throw new DeclinedError();
}
