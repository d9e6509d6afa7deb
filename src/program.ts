import type { Command as CommanderCommand } from 'commander';
import type { MainDeps } from './cli.js';
import { usageArguments, type CommandSpec, type GroupSpec } from './commands/spec.js';
import { GLOBAL_OPTIONS } from './commands/globals.js';
import { COMMANDS, GROUPS, PROGRAM } from './commands/tree.js';
import { CliError, exitCodeFor, ExitCode, UsageError } from './errors.js';
import { createIOStreams } from './output/io.js';
import { registerEnvironmentSecrets, SecretRegistry } from './output/secrets.js';
import { SANDBOX_DEFAULT_USER } from './domain/sandbox-defaults.js';
import { VERSION } from './version.js';
import { longFlag, prefetchCommand, selectedBranch } from './program/argv-scan.js';
import { makeOption } from './program/commander-parts.js';
import { commanderExit, reportError } from './program/error-report.js';
import { ioInit, runCommand, type RunState } from './program/run-command.js';

// The program: the commander tree built from the command specs, parsing, and the run of one
// command line, from the secrets registered first to the exit code. Loaded by main() for
// everything but `svc --version`. Its parts are in src/program/: reading argv before commander
// (argv-scan.ts), the pieces of a commander command (commander-parts.ts), the global options
// (global-options.ts), the pager (paging.ts), running the command (run-command.ts), and the one
// place where an error becomes a message and an exit code (error-report.ts).


export async function runMain(argv: readonly string[], resolved: MainDeps): Promise<number> {
  // The sandbox's documented default password is no secret, and it is also a word every sandbox
  // message uses: only its encoded forms are hidden.
  const secrets = new SecretRegistry([SANDBOX_DEFAULT_USER.password]);
  registerEnvironmentSecrets(secrets, resolved.env, argv);
  const state: RunState = { exitCode: ExitCode.Ok, ctx: undefined, secrets };
  const wantsJson = argv.includes('--json') || argv.some((a, i) => (a === '-o' || a === '--output') && argv[i + 1] === 'json') || argv.includes('--output=json');
  const io = createIOStreams(ioInit(resolved, argv.includes('--no-color'), secrets));
  prefetchCommand(argv);
  try {
    const program = await buildProgram(argv, resolved, state, wantsJson);
    // A bare `svc` is a request for the help, not a mistake: on stdout, exit 0.
    await program.parseAsync(argv.length === 0 ? ['--help'] : [...argv], { from: 'user' });
    return state.exitCode;
  } catch (error) {
    const code = commanderExit(error);
    if (code !== undefined) return code;
    reportError(io, error, state.ctx?.globals.output === 'json' || wantsJson);
    // An error no command meant to raise is a bug: --debug shows where, for the report.
    if (!(error instanceof CliError) && error instanceof Error && argv.includes('--debug')) io.stderr.write(`${error.stack ?? ''}\n`);
    return exitCodeFor(error);
  } finally {
    await state.ctx?.close();
  }
}

















async function buildProgram(argv: readonly string[], deps: MainDeps, state: RunState, wantsJson: boolean): Promise<CommanderCommand> {
  const { Command, Option } = await import('commander');
  const program = new Command('svc');
  const io = createIOStreams(ioInit(deps, false, state.secrets));
  const configure = (cmd: CommanderCommand): CommanderCommand =>
    cmd
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        // Parse errors (unknown option, missing argument) follow --json like every other error.
        outputError: (text, write) => {
          if (!wantsJson) write(text);
          else reportError(io, new UsageError(text.replace(/^error: /, '').replace(/\s+$/, '').replace(/\n/g, ' ')), true);
        },
      })
      .showSuggestionAfterError(true)
      .configureHelp({ sortSubcommands: false, showGlobalOptions: false });
  configure(program)
    .description(PROGRAM.summary)
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .enablePositionalOptions()
    .addHelpText('after', `\nStart here:\n${PROGRAM.startHere.map(([line, what]) => `  ${line.padEnd(30)}${what}\n`).join('')}`);
  const addGlobals = (cmd: CommanderCommand, own: ReadonlySet<string>): void => {
    for (const spec of GLOBAL_OPTIONS) {
      if (own.has(longFlag(spec.flags))) continue;
      cmd.addOption(makeOption(Option, spec).helpGroup('Global options:'));
    }
  };
  addGlobals(program, new Set());

  // Only the branch the command line names is built in full (options, help, action); the others
  // are outlines that carry what `svc --help` lists. Most of the tree is never parsed against.
  const selected = selectedBranch(argv);
  const groups = new Map<string, CommanderCommand>();
  const groupSummaries = new Map(GROUPS.map((g: GroupSpec) => [g.name, g.summary]));
  const parentFor = (path: readonly string[]): CommanderCommand => {
    let parent = program;
    for (let depth = 0; depth < path.length - 1; depth++) {
      const key = path.slice(0, depth + 1).join(' ');
      let group = groups.get(key);
      // A command that also has subcommands (`send` and `send report`): its options after the
      // subcommand's name belong to the subcommand.
      const leaf = group ? undefined : parent.commands.find((c) => c.name() === path[depth]);
      if (leaf) {
        group = leaf.enablePositionalOptions();
        groups.set(key, group);
      }
      if (!group) {
        group = configure(new Command(path[depth]!)).description(groupSummaries.get(key) ?? '').enablePositionalOptions();
        if (path[0] === selected) addGlobals(group, new Set());
        parent.addCommand(group);
        groups.set(key, group);
      }
      parent = group;
    }
    return parent;
  };

  for (const spec of COMMANDS) {
    if (spec.path[0] === selected) addLeaf(spec);
    else addOutline(spec);
  }

  function addOutline(spec: CommandSpec): void {
    const outline = new Command(spec.path[spec.path.length - 1]!).description(spec.summary);
    for (const arg of spec.args ?? []) {
      const name = `${arg.name}${arg.variadic ? '...' : ''}`;
      outline.argument(`[${name}]`, arg.description);
    }
    outline.usage(usageArguments(spec));
    parentFor(spec.path).addCommand(outline, spec.hidden ? { hidden: true } : {});
  }

  function addLeaf(spec: CommandSpec): void {
    const parent = parentFor(spec.path);
    const leaf = configure(new Command(spec.path[spec.path.length - 1]!)).description(spec.summary);
    for (const arg of spec.args ?? []) {
      const name = `${arg.name}${arg.variadic ? '...' : ''}`;
      leaf.argument(`[${name}]`, arg.description);
    }
    leaf.usage(usageArguments(spec));
    const own = new Set<string>();
    const ownAttributes = new Set<string>();
    for (const option of spec.options ?? []) {
      own.add(longFlag(option.flags));
      const made = makeOption(Option, option);
      if (GLOBAL_OPTIONS.some((g) => longFlag(g.flags) === longFlag(option.flags))) ownAttributes.add(made.attributeName());
      leaf.addOption(made);
    }
    addGlobals(leaf, own);
    const examples = spec.examples.map((e) => `  $ ${e}`).join('\n');
    leaf.addHelpText('after', `${spec.description ? `\n${spec.description}\n` : ''}\nExamples:\n${examples}\n`);
    leaf.action(async (...params: unknown[]) => {
      await runCommand(spec, params[params.length - 1] as CommanderCommand, ownAttributes, argv, deps, state);
    });
    parent.addCommand(leaf, spec.hidden ? { hidden: true } : {});
  }
  return program;
}

