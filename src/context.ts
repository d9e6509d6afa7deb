import type { Dispatcher } from 'undici';
import type { ApiClient } from './api/http.js';
import { systemClock, type Clock } from './clock.js';
import type { IOStreams } from './output/io.js';
import type { ResolvedSettings, resolveSettings } from './config/settings.js';
import type { ProfileStore } from './config/store.js';
import { AuthError, UsageError } from './errors.js';
import { readAllBytes } from './output/io.js';
import { decodeText } from './input/text.js';
import { sgr, visibleLine } from './output/terminal.js';
import type { Asking } from './output/ask.js';
import type { Output, OutputFormat } from './output/format.js';
import type { Prompter, PrompterFactory } from './output/prompts.js';
import type { SpinnerHost } from './output/spinner.js';

export type { OutputFormat } from './output/format.js';
export type { Prompter, PrompterFactory } from './output/prompts.js';

// The Context handed to every command: streams, environment, clock, global options, and the
// costly dependencies (settings, profile store, API client, prompts) built only when asked for.

export type Env = Readonly<Record<string, string | undefined>>;

export interface GlobalOptions {
  output: OutputFormat;
  profile: string | undefined;
  baseUrl: string | undefined;
  debug: boolean;
  timeoutMs: number;
  /** --fields: dotted paths to keep in what is printed. */
  fields?: readonly string[] | undefined;
  /** False with --no-pager. */
  pager?: boolean | undefined;
  /** -y/--yes: do not ask for confirmation. */
  yes?: boolean | undefined;
}

/**
 * A Context is also what the output layer asks for (Output, Asking, SpinnerHost: the streams, the
 * format, --fields, --yes, a prompter), so commands hand it to renderers as it is, while
 * src/output/ depends only on those small shapes of its own.
 */
export interface Context extends Output, Asking, SpinnerHost {
  readonly io: IOStreams;
  readonly env: Env;
  readonly clock: Clock;
  readonly globals: GlobalOptions;
  /** Aborted on Ctrl-C. */
  readonly signal: AbortSignal;
  /** The settings for this command; `tenant` is the command's --tenant flag, when it has one. */
  settings(flags?: { tenant?: string | undefined }): ResolvedSettings;
  profileStore(): Promise<ProfileStore>;
  /** Where passwords are kept: the system keychain, or what a test injected. */
  secretStore(): Promise<import('./config/secrets.js').SecretStore>;
  /** The API client for the resolved settings (or explicit connection details, for `auth login`). */
  api(connection?: { baseUrl: string; username: string; password: string }): Promise<ApiClient>;
  prompter(): Promise<Prompter>;
  /** One line of --debug trace on stderr (nothing without --debug). */
  debug(line: string): void;
  /** A warning on stderr. */
  warn(message: string): void;
  /**
   * A line for the person about the output just printed (how much of a list it shows, what to
   * run next): on stderr, after the output. When the output goes through the pager, the line is
   * held until the pager has exited, so that it is not scrolled away above the page.
   */
  note(line: string): void;
  /**
   * All of standard input as text, for the one flag that claims it; a second claim in the same
   * command is a usage error naming both flags.
   */
  readStdin(purpose: string): Promise<string>;
  /** Resources to release when the command ends (servers, clients). */
  onClose(close: () => Promise<void> | void): void;
}

export interface ContextDeps {
  io: IOStreams;
  env: Env;
  clock?: Clock | undefined;
  signal?: AbortSignal | undefined;
  /** Tests inject an undici MockAgent here. */
  dispatcher?: Dispatcher | undefined;
  /** Tests inject scripted answers here. */
  prompter?: Prompter | undefined;
  /** Builds the prompter on the first question (the CLI: inquirer); ignored when `prompter` is given. */
  createPrompter?: PrompterFactory | undefined;
  /** Tests inject a keychain here (the system keychain otherwise). */
  secretStore?: import('./config/secrets.js').SecretStore | undefined;
  /** Takes the notes while stdout is held for the pager; they are written after it (run-command.ts). */
  holdNote?: ((line: string) => void) | undefined;
}

export class CommandContext implements Context {
  readonly io: IOStreams;
  readonly env: Env;
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly format: OutputFormat;
  readonly fields: readonly string[] | undefined;
  readonly assumeYes: boolean;
  private readonly closers: (() => Promise<void> | void)[] = [];
  private clientPromise: Promise<ApiClient> | undefined;
  private resolved: ResolvedSettings | undefined;
  private stdinClaim: string | undefined;

  /**
   * `resolve` is the settings module's resolver, passed in rather than imported so that the
   * settings and profile-store modules load only when a command runs, never for `--help`.
   */
  constructor(
    private readonly deps: ContextDeps,
    readonly globals: GlobalOptions,
    private readonly resolve: typeof resolveSettings,
  ) {
    this.io = deps.io;
    this.env = deps.env;
    this.clock = deps.clock ?? systemClock;
    this.signal = deps.signal ?? new AbortController().signal;
    this.format = globals.output;
    this.fields = globals.fields;
    this.assumeYes = globals.yes === true;
  }

  settings(flags: { tenant?: string | undefined } = {}): ResolvedSettings {
    const resolve = (tenant: string | undefined): ResolvedSettings =>
      this.resolve({ profile: this.globals.profile, baseUrl: this.globals.baseUrl, tenant }, this.env, (message) => this.warn(message));
    if (flags.tenant !== undefined) return resolve(flags.tenant);
    this.resolved ??= resolve(undefined);
    return this.resolved;
  }

  async profileStore(): Promise<ProfileStore> {
    const [{ openProfileStore }, { configDir }] = await Promise.all([import('./config/store-write.js'), import('./config/store.js')]);
    return openProfileStore(configDir(this.env), { onRepair: (message) => this.warn(message) });
  }

  async secretStore(): Promise<import('./config/secrets.js').SecretStore> {
    if (this.deps.secretStore) return this.deps.secretStore;
    const { systemSecretStore } = await import('./config/secrets.js');
    return systemSecretStore();
  }

  api(connection?: { baseUrl: string; username: string; password: string }): Promise<ApiClient> {
    if (connection) return this.buildClient(connection);
    this.clientPromise ??= (async () => {
      const { requireConnection } = await import('./config/settings.js');
      let settings = this.settings();
      if (!settings.password && settings.profile?.passwordIn === 'keychain' && settings.username && settings.profile.baseUrl) {
        const { readKeychainPassword } = await import('./config/secrets.js');
        const password = await readKeychainPassword(await this.secretStore(), settings.profileName, settings.profile.baseUrl, settings.username);
        settings = { ...settings, password, passwordSource: 'profile' };
      }
      // requireConnection has checked the base URL and made it the API root: it is not done again.
      const { root } = requireConnection(settings);
      return this.buildClient({ root, username: settings.username ?? '', password: settings.password ?? '' });
    })();
    return this.clientPromise;
  }

  /** `connection.root` is the API root already made from a base URL; a `baseUrl` is made into one here. */
  private async buildClient(connection: ({ baseUrl: string } | { root: URL }) & { username: string; password: string }): Promise<ApiClient> {
    const { ApiClient } = await import('./api/http.js');
    if (!connection.username || !connection.password) {
      throw new AuthError('A username and a password are needed');
    }
    const root = 'root' in connection ? connection.root : (await import('./config/settings.js')).apiRoot(connection.baseUrl);
    const client = new ApiClient({
      root,
      username: connection.username,
      password: connection.password,
      timeoutMs: this.globals.timeoutMs,
      clock: this.clock,
      env: this.env,
      signal: this.signal,
      debug: this.globals.debug ? (line) => this.debug(line) : undefined,
      dispatcher: this.deps.dispatcher,
      secrets: this.io.secrets,
      userAgent: `svc-cli (node ${process.version})`,
    });
    this.onClose(() => client.close());
    return client;
  }

  async prompter(): Promise<Prompter> {
    if (this.deps.prompter) return this.deps.prompter;
    if (!this.deps.createPrompter) throw new Error('This context was built without a prompter (ContextDeps.prompter or createPrompter)');
    return this.deps.createPrompter(this.io, this.signal);
  }

  debug(line: string): void {
    if (this.globals.debug) this.io.stderr.write(`[debug] ${line}\n`);
  }

  warn(message: string): void {
    // One line: a warning often quotes the service, whose line breaks would start lines of their own.
    this.io.stderr.write(`${this.io.colorStderr ? sgr(33, 39, 'warning:') : 'warning:'} ${visibleLine(message)}\n`);
  }

  note(line: string): void {
    if (this.deps.holdNote) this.deps.holdNote(line);
    else this.io.stderr.write(`${line}\n`);
  }

  onClose(close: () => Promise<void> | void): void {
    this.closers.push(close);
  }

  async readStdin(purpose: string): Promise<string> {
    if (this.stdinClaim !== undefined) {
      throw new UsageError(`${purpose} and ${this.stdinClaim} cannot both read standard input`);
    }
    this.stdinClaim = purpose;
    // Strictly, as every input file: a byte that is not text is refused, never sent as U+FFFD.
    return decodeText(await readAllBytes(this.io.stdin), 'standard input');
  }

  async close(): Promise<void> {
    const closers = this.closers.splice(0).reverse();
    for (const close of closers) {
      try {
        await close();
      } catch {
        // Release what can be released; a failed close must not hide the command's own outcome.
      }
    }
  }
}
