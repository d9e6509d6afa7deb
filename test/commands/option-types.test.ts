import { describe, expect, expectTypeOf, it } from 'vitest';
import { Option } from 'commander';
import { CommandInput, defineCommands, type FlagNames, type InputFor, type InputOf, type OptionSpec, type ValueNames } from '../../src/commands/spec.js';
import { GLOBAL_OPTIONS } from '../../src/commands/globals.js';
import { COMMANDS } from '../../src/commands/tree.js';
import type { apiCommands } from '../../src/commands/api/index.js';
import type { authCommands } from '../../src/commands/auth/index.js';
import type { completionCommands } from '../../src/commands/completion/index.js';
import type { demoCommands } from '../../src/commands/demo/index.js';
import type { eventsCommands } from '../../src/commands/events/index.js';
import type { healthCommands } from '../../src/commands/health/index.js';
import type { mediaCommands } from '../../src/commands/media/index.js';
import type { messageCommands } from '../../src/commands/message/index.js';
import type { numberCommands } from '../../src/commands/number/index.js';
import type { optoutsCommands } from '../../src/commands/optouts/index.js';
import type { orderCommands } from '../../src/commands/order/index.js';
import type { profileCommands } from '../../src/commands/profile/index.js';
import type { sandboxCommands } from '../../src/commands/sandbox/index.js';
import type { sendCommands } from '../../src/commands/send/index.js';
import type { tenantCommands } from '../../src/commands/tenant/index.js';
import type { threadCommands } from '../../src/commands/thread/index.js';
import type { webhookCommands } from '../../src/commands/webhook/index.js';
import type { fleetCommands } from '../../src/commands/fleet/index.js';

// Option names are typed from the flags a command declares (src/commands/spec.ts), so that a
// misspelt name, or a flag read as a value, does not compile. `npm run lint` type-checks this
// file: each `@ts-expect-error` below fails the lint when the line it marks starts to compile.

/** The shapes of flag the types read, and what commander makes of each (checked below). */
const SHAPES = [
  ['--json', 'json'],
  ['-y, --yes', 'yes'],
  ['--no-color', 'color'],
  ['--wait-timeout <seconds>', 'waitTimeout'],
  ['-o, --output <format>', 'output'],
  ['--webhook-basic-auth-username <user>', 'webhookBasicAuthUsername'],
  ['--tz [zone]', 'tz'],
] as const;

type Shapes = typeof SHAPES;
type GlobalValue = 'output' | 'profile' | 'baseUrl' | 'timeout' | 'fields';
type GlobalFlag = 'json' | 'debug' | 'color' | 'pager' | 'yes';
type Spec<F extends string> = readonly [{ flags: F; description: string }];

/** Every flag the tree declares must have one of the shapes above (so that its type is right). */
const SHAPE = /^(-[a-zA-Z], )?--[a-z][a-z0-9]*(-[a-z0-9]+)*( <[^<>[\] ]+>| \[[^<>[\] ]+\])?$/;

function allOptions(): OptionSpec[] {
  return [...GLOBAL_OPTIONS, ...COMMANDS.flatMap((c) => c.options ?? [])];
}

/** The name the types give a flag, written out at run time: the long flag without `no-`, camelCase. */
function typedName(flags: string): string {
  const long = /--([a-z0-9-]+)/.exec(flags)?.[1] ?? '';
  return long.replace(/^no-/, '').replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

describe('option names typed from their flags', () => {
  it('names each shape of flag as commander does', () => {
    for (const [flags, name] of SHAPES) {
      expect(new Option(flags).attributeName()).toBe(name);
      expect(typedName(flags)).toBe(name);
    }
    expectTypeOf<ValueNames<Spec<Shapes[0][0]>>>().toEqualTypeOf<never>();
    expectTypeOf<FlagNames<Spec<Shapes[0][0]>>>().toEqualTypeOf<'json'>();
    expectTypeOf<FlagNames<Spec<Shapes[1][0]>>>().toEqualTypeOf<'yes'>();
    expectTypeOf<FlagNames<Spec<Shapes[2][0]>>>().toEqualTypeOf<'color'>();
    expectTypeOf<ValueNames<Spec<Shapes[3][0]>>>().toEqualTypeOf<'waitTimeout'>();
    expectTypeOf<FlagNames<Spec<Shapes[3][0]>>>().toEqualTypeOf<never>();
    expectTypeOf<ValueNames<Spec<Shapes[4][0]>>>().toEqualTypeOf<'output'>();
    expectTypeOf<ValueNames<Spec<Shapes[5][0]>>>().toEqualTypeOf<'webhookBasicAuthUsername'>();
    // An optional value (`[zone]`) is a string when given with one, `true` when given bare.
    expectTypeOf<ValueNames<Spec<Shapes[6][0]>>>().toEqualTypeOf<'tz'>();
    expectTypeOf<FlagNames<Spec<Shapes[6][0]>>>().toEqualTypeOf<'tz'>();
  });

  it('every declared flag has one of those shapes, and commander names it as the types do', () => {
    const options = allOptions();
    expect(options.length).toBeGreaterThan(100);
    for (const option of options) {
      expect(option.flags, option.flags).toMatch(SHAPE);
      expect(new Option(option.flags).attributeName(), option.flags).toBe(typedName(option.flags));
    }
  });

  it('a misspelt name, a flag read as a value and a value read as a flag do not compile', () => {
    const commands = defineCommands([
      {
        path: ['x', 'y'],
        summary: 'x',
        options: [
          { flags: '--wait-timeout <seconds>', description: 'x' },
          { flags: '--wait', description: 'x' },
        ],
        examples: ['svc x y'],
        load: async () => ({ run: async () => 0 }),
      },
      { path: ['x', 'z'], summary: 'x', options: [{ flags: '--port <n>', description: 'x' }], examples: ['svc x z'], load: async () => ({ run: async () => 0 }) },
    ]);
    const input: InputFor<typeof commands, 'x y'> = new CommandInput([], { waitTimeout: '5', wait: true, json: true });
    expect(input.string('waitTimeout')).toBe('5');
    expect(input.flag('wait')).toBe(true);
    // The global options are every command's.
    expect(input.flag('json')).toBe(true);
    expect(input.string('output')).toBeUndefined();
    // @ts-expect-error a misspelt name
    expect(input.string('waitTimout')).toBeUndefined();
    // @ts-expect-error a flag read as a value
    expect(input.string('wait')).toBeUndefined();
    // @ts-expect-error a value read as a flag
    expect(input.flag('waitTimeout')).toBe(false);
    // @ts-expect-error a misspelt flag
    expect(input.flag('wiat')).toBe(false);
    // @ts-expect-error a name another command declares
    expect(input.number('port', '--port')).toBeUndefined();
    // @ts-expect-error a path the list does not have
    expectTypeOf<InputFor<typeof commands, 'x q'>>().not.toBeNever();
    // A body that serves two commands reads the names both declare (here, only the global ones).
    expectTypeOf<InputFor<typeof commands, 'x y' | 'x z'>>().toEqualTypeOf<CommandInput<GlobalValue, GlobalFlag>>();
    expectTypeOf<InputFor<typeof commands, 'x y'>>().toEqualTypeOf<CommandInput<'waitTimeout' | GlobalValue, 'wait' | GlobalFlag>>();
    expectTypeOf<InputFor<typeof commands, 'x z'>>().toEqualTypeOf<CommandInput<'port' | GlobalValue, GlobalFlag>>();
  });

  it('a helper takes the names it reads, and only an input that has them', () => {
    const readsWait = (i: CommandInput<'waitTimeout', 'wait'>): boolean => i.flag('wait') && i.has('waitTimeout');
    const readsPort = (i: CommandInput<'port'>): string | undefined => i.string('port');
    const [spec] = defineCommands([
      {
        path: ['x'],
        summary: 'x',
        options: [
          { flags: '--wait-timeout <seconds>', description: 'x' },
          { flags: '--wait', description: 'x' },
          { flags: '--other <x>', description: 'x' },
        ],
        examples: ['svc x'],
        load: async () => ({ run: async () => 0 }),
      },
    ]);
    const input: InputOf<typeof spec> = new CommandInput([], { waitTimeout: '5', wait: true });
    expect(readsWait(input)).toBe(true);
    // @ts-expect-error the command declares no --port
    expect(readsPort(input)).toBeUndefined();
  });

  it('each command body takes the input of its own spec', () => {
    // A body typed with another command's spec, or untyped, shows here by its path.
    expectTypeOf<Mismatched<typeof apiCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof authCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof completionCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof demoCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof eventsCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof healthCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof mediaCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof messageCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof numberCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof optoutsCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof orderCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof profileCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof sandboxCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof sendCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof tenantCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof threadCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof webhookCommands>>().toEqualTypeOf<never>();
    expectTypeOf<Mismatched<typeof fleetCommands>>().toEqualTypeOf<never>();
  });
});

/**
 * The paths of the commands in a noun's list whose body does not take the input of its spec (or
 * takes an untyped `CommandInput`, which reads any name).
 */
type Mismatched<T extends readonly unknown[]> = BodyMismatch<T[number]>;
type BodyMismatch<S> = S extends { path: readonly string[]; load(): Promise<infer M> }
  ? M extends { run(input: infer I, ...rest: infer _): unknown }
    ? [InputOf<S>] extends [I]
      ? [I] extends [CommandInput<'', ''>]
        ? S['path']
        : never
      : S['path']
    : S['path']
  : never;
