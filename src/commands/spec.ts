import type { Context } from '../context.js';
import { UsageError } from '../errors.js';

// Commands are declared as data: the tree, its flags and examples are loaded eagerly (help,
// completions and parsing come from it), while each command's body is imported only when it runs.

export interface OptionSpec {
  /** Commander flags, e.g. `--tenant <guid>`, `-o, --output <format>`, `--wait`. */
  flags: string;
  description: string;
  /** Listed values, for help and completions (matching is case-insensitive in the body). */
  choices?: readonly string[];
  /** The option may be given several times; its value is a list. */
  repeatable?: boolean;
  /** What completions offer for its value. */
  complete?: 'file' | 'none' | 'profile';
  defaultValue?: string | boolean;
  hidden?: boolean;
}

export interface ArgSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
  choices?: readonly string[];
  /** The command asks for it on a terminal when it is missing (else the missing-argument error). */
  ask?: boolean;
  /** What completions offer for it: profile names from the store. */
  complete?: 'profile' | 'file';
}

export interface CommandModule {
  run(input: CommandInput, ctx: Context): Promise<number | void>;
}

export interface CommandSpec {
  /** Words after `svc`: `['tenant', 'list']`. */
  path: readonly string[];
  summary: string;
  /** Longer help text, shown above the examples. */
  description?: string;
  args?: readonly ArgSpec[];
  options?: readonly OptionSpec[];
  /** Shown in `--help`; every command has at least one. */
  examples: readonly string[];
  /** Its output is a finished document: paged on a terminal when taller than it. */
  paged?: boolean;
  /** Left out of help and completions (machinery for the completion scripts). */
  hidden?: boolean;
  load(): Promise<CommandModule>;
}

export interface GroupSpec {
  name: string;
  summary: string;
}

type OptionValue = string | boolean | string[] | undefined;

/**
 * What a command body receives: its positional arguments and its option values, with typed
 * accessors that turn a wrong type into a usage error naming the flag.
 */
export class CommandInput {
  constructor(
    readonly args: readonly (string | readonly string[] | undefined)[],
    private readonly values: Readonly<Record<string, unknown>>,
    /** Option names (camelCase) the user gave on the command line, as opposed to defaults. */
    private readonly given: ReadonlySet<string> = new Set(Object.keys(values)),
  ) {}

  private raw(name: string): OptionValue {
    const value = this.values[name];
    if (value === undefined || typeof value === 'string' || typeof value === 'boolean') return value;
    if (Array.isArray(value) && value.every((v): v is string => typeof v === 'string')) return value;
    return undefined;
  }

  has(name: string): boolean {
    return this.given.has(name) && this.values[name] !== undefined;
  }

  string(name: string): string | undefined {
    const value = this.raw(name);
    if (Array.isArray(value)) return value[value.length - 1];
    return typeof value === 'string' ? value : undefined;
  }

  strings(name: string): string[] {
    const value = this.raw(name);
    if (value === undefined || typeof value === 'boolean') return [];
    return Array.isArray(value) ? [...value] : [value];
  }

  flag(name: string): boolean {
    return this.raw(name) === true;
  }

  /** A number option, checked for range; `flagName` is how the user typed it, for the message. */
  number(name: string, flagName: string, range: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
    const text = this.string(name);
    if (text === undefined) return undefined;
    const value = Number(text);
    const bad =
      text.trim() === '' ||
      !Number.isFinite(value) ||
      // Past 2^53 a whole number is rounded (--page 9007199254740993 would be sent as ...992).
      (range.integer === true && !Number.isSafeInteger(value)) ||
      (range.min !== undefined && value < range.min) ||
      (range.max !== undefined && value > range.max);
    if (bad) {
      const kind = range.integer ? `a whole number${Number.isInteger(value) && !Number.isSafeInteger(value) ? ` no larger than ${Number.MAX_SAFE_INTEGER}` : ''}` : 'a number';
      const bounds =
        range.min !== undefined && range.max !== undefined
          ? ` from ${range.min} to ${range.max}`
          : range.min !== undefined
            ? ` of at least ${range.min}`
            : range.max !== undefined
              ? ` of at most ${range.max}`
              : '';
      throw new UsageError(`${flagName} must be ${kind}${bounds}, not "${text}"`);
    }
    return value;
  }

  /** A copy with these option values added, as if given on the command line (answers to prompts). */
  with(extra: Readonly<Record<string, string | string[]>>): CommandInput {
    return new CommandInput(this.args, { ...this.values, ...extra }, new Set([...this.given, ...Object.keys(extra)]));
  }

  arg(index: number): string | undefined {
    const value = this.args[index];
    return typeof value === 'string' ? value : undefined;
  }

  argList(index: number): string[] {
    const value = this.args[index];
    if (value === undefined) return [];
    return typeof value === 'string' ? [value] : [...value];
  }
}
