// Running the command a line names, once commander has parsed it: the option values merged
// along the tree, the Context built, the required arguments checked, the body loaded and run.

import type { Command as CommanderCommand } from 'commander';
import type { MainDeps } from '../cli.js';
import { CommandInput, type CommandSpec } from '../commands/spec.js';
import { CommandContext } from '../context.js';
import { ExitCode } from '../errors.js';
import { canAsk } from '../output/ask.js';
import { createIOStreams, type IOStreamsInit } from '../output/io.js';
import type { SecretRegistry } from '../output/secrets.js';
import { refuseBothForms } from './argv-scan.js';
import { missingArgument } from './commander-parts.js';
import { globalsFrom } from './global-options.js';
import { holdOutputForPager } from './paging.js';

export interface RunState {
  exitCode: number;
  ctx: CommandContext | undefined;
  /** The run's secrets: every stream of the run redacts with this one registry. */
  secrets: SecretRegistry;
}

export function ioInit(deps: MainDeps, noColorFlag: boolean, secrets: SecretRegistry): Parameters<typeof createIOStreams>[0] {
  return {
    secrets,
    stdin: deps.stdin as IOStreamsInit['stdin'],
    stdout: deps.stdout,
    stderr: deps.stderr,
    ...(deps.tty?.stdin !== undefined ? { stdinIsTTY: deps.tty.stdin } : {}),
    ...(deps.tty?.stdout !== undefined ? { stdoutIsTTY: deps.tty.stdout } : {}),
    ...(deps.tty?.stderr !== undefined ? { stderrIsTTY: deps.tty.stderr } : {}),
    ...(deps.tty?.columns !== undefined ? { columns: deps.tty.columns } : {}),
    env: deps.env,
    noColorFlag,
  };
}

/**
 * `command`: the leaf commander parsed; `ownAttributes`: the options the command declares under
 * the name of a global one (its own meaning after its name).
 */
export async function runCommand(spec: CommandSpec, command: CommanderCommand, ownAttributes: ReadonlySet<string>, argv: readonly string[], deps: MainDeps, state: RunState): Promise<void> {
  // Options given later on the line (the leaf's copies of the globals) win over earlier ones;
  // defaults never override a value given anywhere. A flag the command declares itself (like
  // `order watch --timeout`) means the command's own thing after its name, and the global
  // one only before it.
  const chain: CommanderCommand[] = [];
  for (let cmd: CommanderCommand | null = command; cmd; cmd = cmd.parent) chain.unshift(cmd);
  const values: Record<string, unknown> = {};
  const globalValues: Record<string, unknown> = {};
  const given = new Set<string>();
  const merge = (into: Record<string, unknown>, key: string, value: unknown, explicit: boolean): void => {
    if (explicit || !(key in into)) into[key] = value;
  };
  for (const cmd of chain) {
    const isLeaf = cmd === command;
    for (const [key, value] of Object.entries(cmd.opts())) {
      const source = cmd.getOptionValueSource(key);
      const explicit = source === 'cli' || source === 'env';
      const commandsOwn = ownAttributes.has(key);
      if (!commandsOwn || isLeaf) merge(values, key, value, explicit);
      if (!commandsOwn || !isLeaf) merge(globalValues, key, value, explicit);
      if (explicit && (!commandsOwn || isLeaf)) given.add(key);
    }
  }
  refuseBothForms(spec, argv);
  const globals = globalsFrom(globalValues);
  let ctxIo = createIOStreams(ioInit(deps, globalValues['color'] === false, state.secrets));
  const [{ resolveSettings }, { requireProfileName }] = await Promise.all([import('../config/settings.js'), import('../config/store.js')]);
  if (globals.profile !== undefined) requireProfileName(globals.profile, '--profile');
  else if (deps.env['SVC_PROFILE']) requireProfileName(deps.env['SVC_PROFILE'], 'SVC_PROFILE');
  const held = await holdOutputForPager(spec, ctxIo, globals, deps);
  const terminalStderr = ctxIo.stderr;
  // The held stream takes the terminal's place behind the same output boundary (redacted and
  // terminal-safe), as a terminal of the same width.
  if (held) ctxIo = createIOStreams({ ...ioInit(deps, globalValues['color'] === false, state.secrets), stdout: held.stream, stdoutIsTTY: true, columns: ctxIo.columns });
  // Notes about the output ("20 of 34 shown") wait for the pager, or the page would cover them.
  const notes: string[] = [];
  const ctx = new CommandContext({ ...deps, io: ctxIo, ...(held ? { holdNote: (line: string) => notes.push(line) } : {}) }, globals, resolveSettings);
  state.ctx = ctx;
  const processed = command.processedArgs as (string | string[] | undefined)[];
  const isAbsent = (value: string | string[] | undefined): boolean => value === undefined || (Array.isArray(value) && value.length === 0);
  // Commander fills positionals from the left: when an optional argument comes first (`svc api
  // [METHOD] <PATH>`), the required one arrives in its place, so enough values is enough.
  const presentCount = processed.filter((value) => !isAbsent(value)).length;
  const requiredCount = (spec.args ?? []).filter((arg) => arg.required).length;
  (spec.args ?? []).forEach((arg, i) => {
    if (arg.required && isAbsent(processed[i]) && presentCount < requiredCount && !(arg.ask && canAsk(ctx))) throw missingArgument(spec, arg, ctx);
  });
  const input = new CommandInput(processed, values, given);
  try {
    const module = await spec.load();
    const code = await module.run(input, ctx);
    state.exitCode = typeof code === 'number' ? code : ExitCode.Ok;
  } finally {
    await held?.finish();
    for (const line of notes) terminalStderr.write(`${line}\n`);
  }
}
