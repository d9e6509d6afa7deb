// The pieces of a commander command made from a spec: its options (choices matched
// case-insensitively) and the message for a missing argument. Its usage line is the spec's own
// (`usageArguments`), which the manual prints too.

import type { Option as CommanderOption } from 'commander';
import type { ArgSpec, CommandSpec, OptionSpec } from '../commands/spec.js';
import type { CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { missingValueError, whyNotAsked } from '../output/ask.js';
import { longFlag } from './argv-scan.js';

export function missingArgument(spec: CommandSpec, arg: ArgSpec, ctx: CommandContext): UsageError {
  const example = spec.examples.find((e) => e.split(' ').length > spec.path.length + 1) ?? spec.examples[0];
  return missingValueError(
    {
      what: `${arg.name}${arg.variadic ? '...' : ''} (${arg.description})`,
      flag: `it after \`svc ${spec.path.join(' ')}\``,
      asked: arg.ask === true,
      ...(example ? { hint: `For example: ${example}` } : {}),
    },
    arg.ask ? whyNotAsked(ctx) : '',
  );
}

/** Enumerations match case-insensitively and come out in the listed spelling. */
function choiceParser(flag: string, choices: readonly string[]): (value: string) => string {
  return (value: string) => {
    const match = choices.find((c) => c.toLowerCase() === value.trim().toLowerCase());
    if (match === undefined) {
      throw new UsageError(`${flag} must be one of ${choices.join(', ')}, not "${value}"`);
    }
    return match;
  };
}

export function makeOption(Option: typeof CommanderOption, spec: OptionSpec): CommanderOption {
  const description = spec.choices ? `${spec.description} (${spec.choices.join('|')})` : spec.description;
  const option = new Option(spec.flags, description);
  const parse = spec.choices ? choiceParser(longFlag(spec.flags), spec.choices) : (value: string) => value;
  if (spec.repeatable) {
    option.argParser((value: string, previous: unknown) => [...(Array.isArray(previous) ? (previous as string[]) : []), parse(value)]);
  } else if (spec.choices) {
    option.argParser(parse);
  }
  if (spec.defaultValue !== undefined) option.default(spec.defaultValue);
  if (spec.hidden) option.hideHelp();
  return option;
}
