import type { Command as CommanderCommand } from 'commander';
import type { MainDeps } from './cli.js';
import { COMMANDS, GROUPS, PROGRAM } from './commands/tree.js';
import { CliError, exitCodeFor, ExitCode, UsageError } from './errors.js';
import { createIOStreams, type IOStreams } from './output/io.js';
import { registerEnvironmentSecrets, SecretRegistry } from './output/secrets.js';
import { widthRuleFor } from './output/width.js';
import { SANDBOX_DEFAULT_USER } from './domain/sandbox-defaults.js';
import { VERSION } from './version.js';
import { leadingWords, prefetchCommand, selectedBranch } from './program/argv-scan.js';
import { addCommandTree, addGlobalOptions } from './program/command-tree.js';
import { commanderExit, reportError } from './program/error-report.js';
import { helpLayout, helpWidthFor, setHelpExtras } from './program/help-format.js';
import { helpTopicLine } from './program/help-topic.js';
import { ioInit, runCommand, type RunState } from './program/run-command.js';

// The program: the commander tree built from the command specs, parsing, and the run of one
// command line, from the secrets registered first to the exit code. Loaded by main() for
// everything but `svc --version`. Its parts are in src/program/: reading argv before commander
// (argv-scan.ts), the tree of commander commands (command-tree.ts) and their pieces
// (commander-parts.ts), the help's layout (help-format.ts) and `svc help TOPIC` (help-topic.ts),
// the global options (global-options.ts), the pager (paging.ts), running the command
// (run-command.ts), and the one place where an error becomes a message and an exit code
// (error-report.ts).


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
    // A bare `svc` is a request for the help, not a mistake: on stdout, exit 0.
    const line = argv.length === 0 ? ['--help'] : helpTopicLine(argv, COMMANDS, GROUPS);
    const program = await buildProgram(line, resolved, state, wantsJson);
    await program.parseAsync([...line], { from: 'user' });
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
  const commander = await import('commander');
  const io = createIOStreams(ioInit(deps, false, state.secrets));
  const configure = await commandConfigurator(io, argv, wantsJson);
  const program = configure(new commander.Command('svc'))
    .description(PROGRAM.summary)
    .version(VERSION, '-V, --version', 'print the version')
    .enablePositionalOptions();
  setHelpExtras(program, {
    startHere: { title: 'Start here:', items: PROGRAM.startHere },
    learnMore: 'svc help COMMAND shows the same as svc COMMAND --help. Every command has a manual page too: man svc-send, man svc-tenant-list.',
  });
  addGlobalOptions(commander.Option, program, new Set());
  addCommandTree({ commander, program, configure, selected: selectedBranch(argv), run: (spec, command, ownAttributes) => runCommand(spec, command, ownAttributes, argv, deps, state) });
  return program;
}

/**
 * What every command of the tree gets: errors thrown rather than exiting, output through our
 * streams (parse errors as JSON with --json), suggestions for a mistyped name, and the help layout
 * at the width of the stream it goes to.
 */
async function commandConfigurator(io: IOStreams, argv: readonly string[], wantsJson: boolean): Promise<(cmd: CommanderCommand) => CommanderCommand> {
  // Help measures its prose with the full width rule when it has wide characters; other runs
  // never show help text but commander's own, so they do not load it.
  // Line by line: a description's line breaks are not wide characters, and would load it for nothing.
  const prose = helpMayShow(argv) ? COMMANDS.flatMap((c) => [c.summary, c.description ?? '', ...(c.options ?? []).map((o) => o.description)]) : [];
  const rule = await widthRuleFor(prose.flatMap((text) => text.split('\n')));
  const layout = helpLayout(rule);
  return (cmd) =>
    cmd
      .exitOverride()
      .configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
        getOutHelpWidth: () => helpWidthFor(io.stdoutIsTTY, io.columns),
        getErrHelpWidth: () => helpWidthFor(io.stderrIsTTY, io.columns),
        // Parse errors (unknown option, missing argument) follow --json like every other error.
        outputError: (text, write) => {
          if (!wantsJson) write(text);
          else reportError(io, new UsageError(text.replace(/^error: /, '').replace(/\s+$/, '').replace(/\n/g, ' ')), true);
        },
      })
      .showSuggestionAfterError(true)
      .helpOption('-h, --help', 'show help')
      .configureHelp(layout);
}

/** Whether this line may print help: asked for, a bare `svc`, or a bare noun (which lacks its command). */
function helpMayShow(argv: readonly string[]): boolean {
  const words = leadingWords(argv, 4);
  return argv.includes('--help') || argv.includes('-h') || words.length === 0 || GROUPS.some((g) => g.name === words.join(' '));
}
