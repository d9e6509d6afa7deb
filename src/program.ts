import type { Command as CommanderCommand, Option as CommanderOption } from 'commander';
import type { MainDeps } from './cli.js';
import { CommandInput, type ArgSpec, type CommandSpec, type GroupSpec, type OptionSpec } from './commands/spec.js';
import { GLOBAL_OPTIONS } from './commands/globals.js';
import { COMMANDS, GROUPS } from './commands/tree.js';
import { CommandContext, type GlobalOptions, type OutputFormat } from './context.js';
import { CliError, describeError, exitCodeFor, ExitCode, UsageError } from './errors.js';
import { createIOStreams, type IOStreams, type IOStreamsInit } from './output/io.js';
import { registerEnvironmentSecrets, SecretRegistry } from './output/secrets.js';
import { SANDBOX_DEFAULT_USER } from './domain/sandbox-defaults.js';
import { canAsk, missingValueError, whyNotAsked } from './output/ask.js';
import { parseFieldList } from './output/fields.js';
import { VERSION } from './version.js';

// The program: the commander tree built from the command specs, parsing, running one command,
// and the one place where an error becomes a message and an exit code. Loaded by main() for
// everything but `svc --version`.

interface RunState {
  exitCode: number;
  ctx: CommandContext | undefined;
  /** The run's secrets: every stream of the run redacts with this one registry. */
  secrets: SecretRegistry;
}

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
    await program.parseAsync([...argv], { from: 'user' });
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

function ioInit(deps: MainDeps, noColorFlag: boolean, secrets: SecretRegistry): Parameters<typeof createIOStreams>[0] {
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

/** Commander signals help, version and parse errors by throwing; turn them into exit codes. */
function commanderExit(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error) || !('exitCode' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  if (typeof code !== 'string' || !code.startsWith('commander.')) return undefined;
  if (code === 'commander.helpDisplayed' || code === 'commander.version') return ExitCode.Ok;
  // `svc help` asked for help (exit code 0); a bare `svc` or `svc tenant` lacked a command (1).
  if (code === 'commander.help') return (error as { exitCode: unknown }).exitCode === 0 ? ExitCode.Ok : ExitCode.Usage;
  return ExitCode.Usage;
}

export function reportError(io: IOStreams, error: unknown, json: boolean): void {
  const described = describeError(error);
  if (json) {
    const body = {
      error: {
        status: described.status,
        message: described.message,
        title: described.title,
        errorCode: described.errorCode,
      },
    };
    io.stderr.write(`${JSON.stringify(body)}\n`);
    return;
  }
  const red = (text: string): string => (io.colorStderr ? `\u001b[31m${text}\u001b[39m` : text);
  io.stderr.write(`${red('error:')} ${described.message}\n`);
  for (const hint of described.hints) io.stderr.write(`  ${hint}\n`);
}

function parseTimeout(text: string | undefined): number {
  if (text === undefined) return 30_000;
  const seconds = Number(text);
  if (text.trim() === '' || !Number.isFinite(seconds) || seconds <= 0) {
    throw new UsageError(`--timeout must be a positive number of seconds, not "${text}"`);
  }
  // At least 1 ms: undici reads a timeout of 0 as "no timeout".
  return Math.max(1, Math.round(seconds * 1000));
}

function globalsFrom(values: Record<string, unknown>): GlobalOptions {
  let output: OutputFormat = 'table';
  const requested = values['output'];
  if (typeof requested === 'string') output = requested as OutputFormat;
  if (values['json'] === true) output = 'json';
  const str = (name: string): string | undefined => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const fields = str('fields');
  return {
    output,
    profile: str('profile'),
    baseUrl: str('baseUrl'),
    debug: values['debug'] === true,
    timeoutMs: parseTimeout(str('timeout')),
    fields: fields === undefined ? undefined : parseFieldList(fields),
    pager: values['pager'] !== false,
    yes: values['yes'] === true,
  };
}

/** Commander is told every positional is optional, so that a missing one gets this message. */
function commandUsage(spec: CommandSpec): string {
  const args = (spec.args ?? []).map((a) => {
    const name = `${a.name}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return ['[options]', ...args].join(' ');
}

function missingArgument(spec: CommandSpec, arg: ArgSpec, ctx: CommandContext): UsageError {
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

/**
 * An option declared both ways (`--store <dir>` and `--no-store`) takes one of them: given both,
 * commander would keep whichever came last, silently, so it is a usage error naming both.
 */
function refuseBothForms(spec: CommandSpec, argv: readonly string[]): void {
  // The flags on the line, not the values they take (`--body --no-store` sends that text).
  const takesValue = valueFlags([...GLOBAL_OPTIONS, ...(spec.options ?? [])]);
  const flags: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--') break;
    if (!word.startsWith('-')) continue;
    flags.push(word);
    if (takesValue.has(word)) i++;
  }
  const given = (flag: string): boolean => flags.some((word) => word === flag || word.startsWith(`${flag}=`));
  for (const option of spec.options ?? []) {
    const flag = longFlag(option.flags);
    if (!flag.startsWith('--no-')) continue;
    const positive = `--${flag.slice('--no-'.length)}`;
    if (!(spec.options ?? []).some((other) => longFlag(other.flags) === positive)) continue;
    if (given(flag) && given(positive)) throw new UsageError(`${positive} and ${flag} cannot be used together: choose one`);
  }
}

function longFlag(flags: string): string {
  return /--[a-z0-9-]+/i.exec(flags)?.[0] ?? flags;
}

function makeOption(Option: typeof CommanderOption, spec: OptionSpec): CommanderOption {
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

/** Every spelling (`-o`, `--output`) of the options that take a value. */
function valueFlags(options: readonly OptionSpec[]): Set<string> {
  return new Set(options.filter((o) => /[<[]/.test(o.flags)).flatMap((o) => o.flags.split(/[ ,]+/).filter((f) => f.startsWith('-'))));
}

const GLOBALS_WITH_VALUES = valueFlags(GLOBAL_OPTIONS);

/** The first `max` words of the line that are not options or the values of global options. */
function leadingWords(argv: readonly string[], max: number): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < max; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      if (!arg.includes('=') && GLOBALS_WITH_VALUES.has(arg)) i++;
      continue;
    }
    words.push(arg);
  }
  return words;
}

/** The top-level command the line names (`svc --json tenant list` -> `tenant`; `svc help number` -> `number`). */
export function selectedBranch(argv: readonly string[]): string | undefined {
  const [first, second] = leadingWords(argv, 2);
  return first === 'help' ? second : first;
}

/**
 * Starts loading the body of the command the line names while commander loads, so that reading
 * their files overlaps (start-up, issue 12). The load is the one the action awaits later (an
 * import is done once); a failure shows there, not here.
 */
function prefetchCommand(argv: readonly string[]): void {
  if (argv.includes('--help') || argv.includes('-h')) return;
  const words = leadingWords(argv, 3);
  const spec = COMMANDS.filter((c) => c.path.every((part, i) => words[i] === part)).sort((a, b) => b.path.length - a.path.length)[0];
  spec?.load().catch(() => undefined);
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
    .description('Phone numbers, tenants, SMS/MMS, media and webhooks of the messaging service, and a local sandbox of it.')
    .version(VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .enablePositionalOptions()
    .addHelpText(
      'after',
      '\nStart here:\n  svc demo                      a tour of the whole tool against a local sandbox\n  svc auth login                store credentials in a profile\n  svc <command> --help          flags and examples of a command\n',
    );
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
    outline.usage(commandUsage(spec));
    parentFor(spec.path).addCommand(outline, spec.hidden ? { hidden: true } : {});
  }

  function addLeaf(spec: CommandSpec): void {
    const parent = parentFor(spec.path);
    const leaf = configure(new Command(spec.path[spec.path.length - 1]!)).description(spec.summary);
    for (const arg of spec.args ?? []) {
      const name = `${arg.name}${arg.variadic ? '...' : ''}`;
      leaf.argument(`[${name}]`, arg.description);
    }
    leaf.usage(commandUsage(spec));
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
      const command = params[params.length - 1] as CommanderCommand;
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
      const [{ resolveSettings }, { requireProfileName }] = await Promise.all([import('./config/settings.js'), import('./config/store.js')]);
      if (globals.profile !== undefined) requireProfileName(globals.profile, '--profile');
      else if (deps.env['SVC_PROFILE']) requireProfileName(deps.env['SVC_PROFILE'], 'SVC_PROFILE');
      const held = await holdOutputForPager(spec, ctxIo, globals, deps);
      if (held) ctxIo = { ...ctxIo, stdout: held.stream };
      const ctx = new CommandContext({ ...deps, io: ctxIo }, globals, resolveSettings);
      state.ctx = ctx;
      const processed = command.processedArgs as (string | string[] | undefined)[];
      (spec.args ?? []).forEach((arg, i) => {
        const value = processed[i];
        const absent = value === undefined || (Array.isArray(value) && value.length === 0);
        if (arg.required && absent && !(arg.ask && canAsk(ctx))) throw missingArgument(spec, arg, ctx);
      });
      const input = new CommandInput(processed, values, given);
      try {
        const module = await spec.load();
        const code = await module.run(input, ctx);
        state.exitCode = typeof code === 'number' ? code : ExitCode.Ok;
      } finally {
        await held?.finish();
      }
    });
    parent.addCommand(leaf, spec.hidden ? { hidden: true } : {});
  }
  return program;
}

/** A paged command's stdout on a terminal is held, to go through the pager if it is tall. */
async function holdOutputForPager(spec: CommandSpec, io: IOStreams, globals: GlobalOptions, deps: MainDeps): Promise<import('./output/pager.js').HeldOutput | undefined> {
  if (!spec.paged || !io.stdoutIsTTY || globals.output !== 'table' || globals.pager === false) return undefined;
  const terminal = deps.stdout as { fd?: unknown; rows?: unknown };
  if (typeof terminal.fd !== 'number' || typeof terminal.rows !== 'number' || terminal.rows <= 0) return undefined;
  const { holdForPager, pagerCommand } = await import('./output/pager.js');
  const command = pagerCommand(deps.env);
  if (command === undefined) return undefined;
  return holdForPager(deps.stdout, terminal.fd, terminal.rows, command, deps.env);
}
