import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import type { GLOBAL_OPTIONS } from './globals.js';

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

/** An exit code a command can end with, alone or with what it means there: `[1, 'the signature does not match']`. */
export type ExitCodeSpec = number | readonly [code: number, meaning: string];

export interface CommandModule {
  // A method, so that a body typed for its own option names (`CommandInput<'a', 'b'>`) fits here.
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
  /**
   * The exit codes it can end with besides 0, 2 (usage, a declined confirmation) and the
   * interruptions (129, 130, 143), which every command has, for its manual page: a code alone
   * means what the table says, `[code, text]` what it means for this command. Absent, the
   * manual shows every code of the table.
   */
  exitCodes?: readonly ExitCodeSpec[];
  load(): Promise<CommandModule>;
}

/**
 * What follows the command's words in its usage line: `[options] <ID> [NUMBER...]`, for --help and
 * the manual. Commander itself is told every positional is optional, so that a missing one gets
 * our message (which can ask for it); this line still says which are required.
 */
export function usageArguments(spec: Pick<CommandSpec, 'args'>): string {
  const args = (spec.args ?? []).map((a) => {
    const name = `${a.name}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return ['[options]', ...args].join(' ');
}

export interface GroupSpec {
  name: string;
  summary: string;
}

/** A command as its noun's index.ts declares it; `load` is checked against `CommandModule` in tree.ts. */
export interface CommandDef extends Omit<CommandSpec, 'load'> {
  load(): Promise<object>;
}

/**
 * A noun's commands, with their literal paths and option flags kept so that each body can be
 * typed from its own declaration: `export const tenantCommands = defineCommands([...])` in
 * index.ts, and `run(input: InputFor<typeof tenantCommands, 'tenant create'>, ctx)` in the body
 * (an `import type`: nothing more is loaded). The bodies' module types are carried, not checked
 * here (that would need this list's type while it is being made): tree.ts checks them against
 * `CommandModule`, and test/commands/option-types.test.ts that each body takes its own spec.
 */
export function defineCommands<const T extends readonly CommandDef[]>(commands: T): T {
  return commands;
}

/** An option whose literal flags are kept, for one shared by several commands. */
export function defineOption<const O extends OptionSpec>(option: O): O {
  return option;
}

/** Options whose literal flags are kept, for lists shared by several commands. */
export function defineOptions<const O extends readonly OptionSpec[]>(options: O): O {
  return options;
}

// Option names as commander makes them from the flag syntax, at the type level:
// `-o, --output <format>` -> value option `output`; `--no-color` -> flag `color`;
// `--wait-timeout <seconds>` -> value option `waitTimeout`; `--tz [zone]` -> both.
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<Camel<Tail>>}` : S;
type LongPart<F extends string> = F extends `${string}--${infer Rest}` ? Rest : F extends `-${infer Short}` ? Short : never;
type LongName<F extends string> = LongPart<F> extends `${infer Name} ${string}` ? Name : LongPart<F>;
type NameOf<F extends string> = LongName<F> extends `no-${infer Name}` ? Camel<Name> : Camel<LongName<F>>;
type ValuePart<F extends string> = LongPart<F> extends `${string} ${infer Value}` ? Value : '';

/** Names of the options that take a value (`<x>` or `[x]`), read with `string`, `strings`, `number`. */
export type ValueNames<O> = O extends readonly (infer S)[] ? (S extends { flags: infer F extends string } ? (ValuePart<F> extends '' ? never : NameOf<F>) : never) : never;
/** Names of the options read with `flag`: those without a value, and those whose value is optional. */
export type FlagNames<O> = O extends readonly (infer S)[] ? (S extends { flags: infer F extends string } ? (ValuePart<F> extends '' | `[${string}` ? NameOf<F> : never) : never) : never;

type OptionsOf<S> = S extends { options: infer O } ? O : readonly [];
type Join<P> = P extends readonly [infer Head extends string, ...infer Tail] ? (Tail extends readonly [] ? Head : `${Head} ${Join<Tail>}`) : never;
/** The paths of a list of commands, as typed after `svc`: `'tenant create'`. */
export type PathOf<S> = S extends { path: infer P } ? Join<P> : never;

/** What the body of a command receives: typed by its own options and the global ones. */
export type InputOf<S> = CommandInput<ValueNames<OptionsOf<S>> | GlobalValueNames, FlagNames<OptionsOf<S>> | GlobalFlagNames>;

type At<T extends readonly CommandDef[], P> = T[number] extends infer S ? (S extends { path: infer Q } ? (Join<Q> extends P ? S : never) : never) : never;
/** What several name lists have in common: `Common<['a' | 'b'] | ['a' | 'c']>` is `'a'`. */
type Common<L> = (L extends unknown ? (names: L) => void : never) extends (names: infer I extends [string]) => void ? I[0] : never;
type CommonValueNames<S> = Common<S extends unknown ? [ValueNames<OptionsOf<S>>] : never>;
type CommonFlagNames<S> = Common<S extends unknown ? [FlagNames<OptionsOf<S>>] : never>;

/**
 * The input of the command at `path` in a noun's list (a path not in the list does not compile).
 * A body that serves several commands names them all (`'sandbox inbound' | 'sandbox trigger
 * message-received'`) and reads only the names they all declare.
 */
export type InputFor<T extends readonly CommandDef[], P extends PathOf<T[number]>> = CommandInput<
  CommonValueNames<At<T, P>> | GlobalValueNames,
  CommonFlagNames<At<T, P>> | GlobalFlagNames
>;

type OptionValue = string | boolean | string[] | undefined;

/**
 * What a command body receives: its positional arguments and its option values, with typed
 * accessors that turn a wrong type into a usage error naming the flag.
 *
 * `V` are the names of the options that take a value, `F` those of flags (camelCase, as
 * commander makes them). A helper that reads options takes `CommandInput<'tenant' | 'file', 'use'>`
 * for exactly the names it reads; passing the input of a command that lacks one does not
 * compile (`in`: an input with more names fits where fewer are read, never the other way).
 * Without arguments it reads any name (program.ts, which builds it, and tests).
 */
export class CommandInput<in V extends string = string, in F extends string = string extends V ? string : never> {
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

  has(name: V | F): boolean {
    return this.given.has(name) && this.values[name] !== undefined;
  }

  string(name: V): string | undefined {
    const value = this.raw(name);
    if (Array.isArray(value)) return value[value.length - 1];
    return typeof value === 'string' ? value : undefined;
  }

  strings(name: V): string[] {
    const value = this.raw(name);
    if (value === undefined || typeof value === 'boolean') return [];
    return Array.isArray(value) ? [...value] : [value];
  }

  flag(name: F): boolean {
    return this.raw(name) === true;
  }

  /** A number option, checked for range; `flagName` is how the user typed it, for the message. */
  number(name: V, flagName: string, range: { min?: number; max?: number; integer?: boolean } = {}): number | undefined {
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
  with(extra: Readonly<Partial<Record<V, string | string[]>>>): CommandInput<V, F> {
    return new CommandInput<V, F>(this.args, { ...this.values, ...extra }, new Set([...this.given, ...Object.keys(extra)]));
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

type GlobalValueNames = ValueNames<typeof GLOBAL_OPTIONS>;
type GlobalFlagNames = FlagNames<typeof GLOBAL_OPTIONS>;
