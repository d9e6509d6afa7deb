import { stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LockHeldError } from '../../domain/files/lock.js';
import { fileProblem } from '../../domain/files/reasons.js';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../domain/urls.js';
import { SANDBOX_DEFAULT_URL } from '../../domain/sandbox-defaults.js';
import {
  DEFAULT_MESSAGE_STEP_MS,
  DEFAULT_ORDER_DELAY_MS,
  DEFAULT_SANDBOX_HOST,
  DEFAULT_SANDBOX_PORT,
  DEFAULT_USER,
  parseUserSpec,
  startSandbox,
  type RunningSandbox,
  type SandboxOptions,
  type SandboxUser,
} from '../../sandbox/index.js';
import { exchangeLogObserver } from './exchange-log.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';

export interface SandboxStartOptions {
  port: number;
  host: string;
  stateFile: string | undefined;
  orderDelayMs: number;
  timeScale: number;
  faults: number;
  /** Account-wide sends per second; 0 is no limit. */
  rateLimit: number;
  /** Accounts from --user, in the order given. */
  users: SandboxUser[];
}

/** The --user value, checked without ever echoing what may be a password. */
function userFromFlag(value: string): SandboxUser {
  const colon = value.indexOf(':');
  if (colon < 0) throw new UsageError('--user must be EMAIL:PASSWORD; the value given has no ":" (it is not repeated here in case it is a password)');
  const email = value.slice(0, colon).trim();
  if (!/^[^\s@:]+@[^\s@:]+$/.test(email)) throw new UsageError(`--user ${email === '' ? '(empty email)' : `"${email}"`}: the part before ":" must be an email address`);
  if (colon === value.length - 1) throw new UsageError(`--user ${email}: the password after ":" is empty`);
  const user = parseUserSpec(value);
  return { email, password: user.password };
}

export async function startOptionsFrom(input: InputFor<typeof sandboxCommands, 'sandbox start'>): Promise<SandboxStartOptions> {
  const port = input.number('port', '--port', { min: 0, max: 65535, integer: true }) ?? DEFAULT_SANDBOX_PORT;
  const host = (input.string('host') ?? DEFAULT_SANDBOX_HOST).trim();
  if (host === '') throw new UsageError('--host must be an address, not ""');
  const orderDelayMs = input.number('orderDelay', '--order-delay', { min: 0, max: 86_400_000, integer: true }) ?? DEFAULT_ORDER_DELAY_MS;
  const timeScale = input.number('timeScale', '--time-scale', { min: 0.001, max: 1_000_000 }) ?? 1;
  const faults = input.number('faults', '--faults', { min: 0, max: 1 }) ?? 0;
  const rateLimit = input.number('rateLimit', '--rate-limit', { min: 1, max: 1_000_000, integer: true }) ?? 0;

  const users: SandboxUser[] = [];
  for (const value of input.strings('user')) {
    const user = userFromFlag(value);
    if (users.some((u) => u.email.toLowerCase() === user.email.toLowerCase())) throw new UsageError(`--user ${user.email} is given twice`);
    users.push(user);
  }

  let stateFile: string | undefined;
  const stateFlag = input.string('state');
  if (stateFlag !== undefined) {
    if (stateFlag.trim() === '') throw new UsageError('--state must be a file name, not ""');
    stateFile = resolve(stateFlag);
    const existing = await stat(stateFile).catch(() => undefined);
    if (existing?.isDirectory()) throw new UsageError(`--state ${stateFlag} is a directory; give a file name`);
    const parent = await stat(dirname(stateFile)).catch(() => undefined);
    if (!parent?.isDirectory()) throw new UsageError(`--state ${stateFlag}: the directory ${dirname(stateFile)} does not exist`);
  }
  return { port, host, stateFile, orderDelayMs, timeScale, faults, rateLimit, users };
}

const REQUEST_LINE = /^[A-Z]+ \S* \d{3} [\d.]+ms$/;

/** Errors of listening or of loading the state file, in the user's terms. */
function startFailure(error: unknown, options: SandboxStartOptions, stateFlag: string | undefined): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  const { port, host } = options;
  if (code === 'EADDRINUSE') {
    return new CliError(`port ${port} on ${host} is already in use (another sandbox?); choose another with --port, or --port 0 for a free one`, ExitCode.Failure);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new UsageError(`--host ${host} is not an address of this machine`);
  if (code === 'EACCES' && (error as NodeJS.ErrnoException).syscall === 'listen') {
    return new CliError(`not allowed to listen on port ${port}; use a port above 1023`, ExitCode.Failure);
  }
  if (stateFlag !== undefined && error instanceof LockHeldError) {
    const holder = error.holder;
    const who = holder === undefined ? `its lock file ${error.lockPath} does not say by whom` : `process ${holder.pid}${error.remote ? ` on ${holder.host}` : ''} (${holder.command ?? 'svc'}) since ${holder.since}`;
    return new CliError(`--state ${stateFlag} is in use by another sandbox: ${who}`, ExitCode.Failure, {
      hints: [
        'Two sandboxes on one state file would each erase what the other saved. Stop that one first, or give this one another --state file.',
        ...(holder === undefined || error.remote ? [`If no sandbox is using it, remove ${error.lockPath}.`] : []),
      ],
    });
  }
  if (stateFlag !== undefined && error instanceof Error) {
    if (code !== undefined) return new CliError(`cannot use --state ${stateFlag}: ${fileProblem(error)}`, ExitCode.Failure);
    // The state reader's own refusals (not JSON, not a sandbox state) are a bad input file.
    if (/^state (file|log) /.test(error.message)) return new UsageError(error.message.replace(options.stateFile ?? '', stateFlag));
  }
  return error;
}

/** What --json prints: enough for a script to connect, never a password it was given. */
export function sandboxSummary(sandbox: RunningSandbox, options: SandboxStartOptions): Record<string, unknown> {
  const given = new Set(options.users.map((u) => u.email.toLowerCase()));
  return {
    url: sandbox.url,
    apiUrl: sandbox.apiUrl,
    host: sandbox.host,
    port: sandbox.port,
    users: sandbox.users.map((u) =>
      given.has(u.email.toLowerCase())
        ? { email: u.email, password: null, passwordSource: 'given' }
        : { email: u.email, password: u.password, passwordSource: 'default' },
    ),
    stateFile: options.stateFile ?? null,
    orderDelayMs: options.orderDelayMs,
    messageStepMs: DEFAULT_MESSAGE_STEP_MS,
    timeScale: options.timeScale,
    faults: options.faults,
    rateLimit: options.rateLimit > 0 ? options.rateLimit : null,
    openapi: `${sandbox.apiUrl}/openapi.json`,
    login: loginCommand(sandbox.url),
  };
}

export function loginCommand(url: string, username?: string): string {
  const parts = ['svc auth login --sandbox'];
  if (url !== SANDBOX_DEFAULT_URL) parts.push(`--base-url ${url}`);
  if (username !== undefined && username.toLowerCase() !== DEFAULT_USER.email) parts.push(`--username ${username}`);
  return parts.join(' ');
}

function banner(sandbox: RunningSandbox, options: SandboxStartOptions): string {
  const given = new Set(options.users.map((u) => u.email.toLowerCase()));
  const scaled = (ms: number): string => `${Number((ms / options.timeScale).toFixed(3))} ms`;
  const lines = [`Sandbox running at ${sandbox.url} (API ${sandbox.apiUrl})`];
  for (const user of sandbox.users) {
    const isGiven = given.has(user.email.toLowerCase());
    // The default password is fixed, documented and only opens this local emulator: showing it
    // is what lets a newcomer connect. Passwords from --user are the person's own: never shown.
    lines.push(`  account   ${user.email} / ${isGiven ? '(password as given)' : `${user.password}  (the fixed sandbox account)`}`);
  }
  lines.push(`  state     ${options.stateFile ? `kept in ${options.stateFile}` : 'in memory (lost when it stops; --state FILE keeps it)'}`);
  lines.push(
    `  timing    orders complete after ${scaled(options.orderDelayMs)} (A2P ${scaled(options.orderDelayMs * 5)}), message steps every ${scaled(DEFAULT_MESSAGE_STEP_MS)}` +
      (options.timeScale !== 1 ? `, webhook retries ${options.timeScale}x faster` : ''),
  );
  if (options.rateLimit > 0) lines.push(`  throttle  ${options.rateLimit} messages a second per account (429 RATE_LIMITED beyond); numbers' settings.rateLimit too`);
  lines.push(`  openapi   ${sandbox.apiUrl}/openapi.json`);
  if (options.faults > 0) lines.push(`  faults    ${Number((options.faults * 100).toFixed(2))}% of API requests answer 500, 503, 429 or drop`);
  lines.push('Connect with:');
  const others = sandbox.users.filter((u) => given.has(u.email.toLowerCase()) && u.email.toLowerCase() !== DEFAULT_USER.email);
  const defaultGiven = given.has(DEFAULT_USER.email);
  lines.push(`  ${loginCommand(sandbox.url)}${defaultGiven ? '   (then enter the password you gave)' : ''}`);
  for (const user of others) lines.push(`  ${loginCommand(sandbox.url, user.email)}`);
  lines.push('Ctrl-C to stop.');
  return `${lines.join('\n')}\n`;
}

export async function run(input: InputFor<typeof sandboxCommands, 'sandbox start'>, ctx: Context): Promise<number> {
  const options = await startOptionsFrom(input);
  const stateFlag = input.string('state');
  const debug = ctx.globals.debug;
  // A failure that ends the sandbox from inside (the exchange log cannot be written): it stops as
  // on Ctrl-C, state saved, and then the failure is the command's outcome.
  const failed = new AbortController();
  const observe = exchangeLogObserver(ctx.env, 'The sandbox stopped rather than answer requests it could no longer record.', (error) => failed.abort(error));
  const sandboxOptions: SandboxOptions = {
    port: options.port,
    host: options.host,
    orderDelayMs: options.orderDelayMs,
    timeScale: options.timeScale,
    faults: options.faults,
    ...(options.rateLimit > 0 ? { rateLimit: options.rateLimit } : {}),
    users: options.users,
    ...(options.stateFile ? { stateFile: options.stateFile } : {}),
    logRequests: debug,
    // Test-only (docs/sandbox.md, "The OpenAPI document"): every exchange appended to this file, for the
    // spawning test to validate against the OpenAPI document.
    ...(observe !== undefined ? { observe } : {}),
    // Request lines only with --debug; the sandbox's own problems (a state file it cannot write,
    // an internal error) always, since the person running it would otherwise never know.
    log: (line) => {
      if (REQUEST_LINE.test(line)) {
        if (debug) ctx.io.stderr.write(`[sandbox] ${line}\n`);
      } else {
        ctx.warn(`sandbox: ${line}`);
      }
    },
  };

  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox(sandboxOptions);
  } catch (error) {
    throw startFailure(error, options, stateFlag);
  }
  let closed = false;
  ctx.onClose(async () => {
    if (!closed) await sandbox.close();
  });

  if (ctx.globals.output === 'json') ctx.io.stdout.write(`${JSON.stringify(sandboxSummary(sandbox, options), null, 2)}\n`);
  else if (ctx.globals.output === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(sandboxSummary(sandbox, options))}\n`);
  ctx.io.stderr.write(banner(sandbox, options));
  if (!isLoopbackHost(options.host)) {
    ctx.warn(`${options.host} is not a loopback address: anyone who can reach this machine can use the sandbox with the default account`);
  }

  const stop = AbortSignal.any([ctx.signal, failed.signal]);
  await new Promise<void>((resolveWait) => {
    if (stop.aborted) resolveWait();
    else stop.addEventListener('abort', () => resolveWait(), { once: true });
  });
  // Whatever stopped it (Ctrl-C, SIGTERM, SIGHUP, a failure), the state is written before the process ends.
  await sandbox.close();
  closed = true;
  ctx.io.stderr.write(`Sandbox stopped${options.stateFile ? `; state saved to ${options.stateFile}` : ''}.\n`);
  if (failed.signal.aborted) throw failed.signal.reason;
  // Like `svc webhook listen`: a stop by signal is 130 (SIGINT), 143 (SIGTERM) or 129 (SIGHUP),
  // even after a clean stop; the abort reason carries which.
  const reason: unknown = ctx.signal.reason;
  return reason instanceof CliError ? reason.exitCode : ExitCode.Interrupted;
}
