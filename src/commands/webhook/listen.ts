import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../domain/urls.js';
import { formatEventJsonLine, formatEventLine, formatRejectionLine, plainPalette } from '../../webhooks/format.js';
import { checkForwardUrl, startWebhookListener } from '../../webhooks/listener.js';
import type { WebhookListener } from '../../webhooks/listener.js';
import type { BasicCredentials } from '../../webhooks/types.js';
import type { InputFor } from '../spec.js';
import type { webhookCommands } from './index.js';
import { DEFAULT_LISTEN_PORT, DEFAULT_SECRET_ENV } from '../defaults.js';
import { basicAuthFromEnv, secretsFromEnv } from './shared/webhook-inputs.js';
import { terminalPalette, type Palette } from '../../output/palette.js';
import { EventStoreWriter } from '../../events/store/writer.js';
import { defaultStoreDir } from '../../events/paths.js';
import { listenerConsent } from '../../optouts/listener-consent.js';
import { readConsentSettings } from '../../optouts/settings.js';
import type { ConsentSettings } from '../../optouts/keywords.js';
import type { ApiClient } from '../../api/http.js';
import { recentIds } from '../../events/store/reader.js';
import { compactQuietly } from '../../events/store/compact.js';
import { batchedWriter, nonBlank, storeDirFrom } from '../events/shared/store-options.js';
import { writeExact } from '../../output/io.js';
import { wrapExample } from '../../program/example-lines.js';

/** Deliveries remembered for deduplication, also across restarts (read back from the store). */
const DEDUPE_WINDOW = 100_000;

type ListenInput = InputFor<typeof webhookCommands, 'webhook listen'>;

/** What the command line asks of the listener, checked before anything is opened. */
interface ListenOptions {
  port: number;
  host: string;
  /** The secrets events are checked against; undefined with --no-verify. */
  secrets: string[] | undefined;
  /** A secret made for this run because none was given (on a terminal only): shown once. */
  generated: string | undefined;
  storeDir: string | undefined;
  fsync: boolean;
  basicAuth: BasicCredentials | undefined;
  forwardTo: string | undefined;
}

/** Where accepted events, refusals and notes go, gathered and written once per event-loop turn. */
interface ListenOutput {
  out: ReturnType<typeof batchedWriter>;
  err: ReturnType<typeof batchedWriter>;
  json: boolean;
  stdoutPalette: Palette;
  stderrPalette: Palette;
  counts: { events: number; duplicates: number; refused: number };
}

export async function run(input: ListenInput, ctx: Context): Promise<number> {
  const options = listenOptions(input, ctx);
  const output = await listenOutput(ctx);
  const store = openStore(ctx, options);
  const listener = await startListening(ctx, options, output, store);
  ctx.onClose(() => listener.close());
  announce(ctx, options, listener);
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
  output.out.flush();
  output.err.flush();
  const { events, duplicates, refused } = output.counts;
  ctx.io.stderr.write(`Stopped: ${events} event${events === 1 ? '' : 's'}, ${duplicates} duplicate${duplicates === 1 ? '' : 's'}, ${refused} refused.\n`);
  // The contract gives Ctrl-C exit 130 everywhere; the listener has closed cleanly by now.
  return ExitCode.Interrupted;
}

function listenOptions(input: ListenInput, ctx: Context): ListenOptions {
  const port = input.number('port', '--port', { min: 0, max: 65535, integer: true }) ?? DEFAULT_LISTEN_PORT;
  // A blank host would bind every interface: refused, not taken as "any address".
  const host = nonBlank(input.string('host') ?? '127.0.0.1', '--host', 'an address of this machine (default 127.0.0.1)');
  const given = secretsFromEnv(ctx, input, { optional: true });
  const noVerify = input.has('verify') && !input.flag('verify');
  if (given !== undefined && noVerify) throw new UsageError('--no-verify and a webhook secret (--secret-env or SVC_WEBHOOK_SECRET) contradict each other');
  // With no secret, a person at a terminal gets one made for this run (shown once, with the line
  // that gives it to a tenant); a script gets the error, since nobody would see the secret.
  let generated: string | undefined;
  if (given === undefined && !noVerify) {
    if (!ctx.io.canPrompt) {
      throw new UsageError('no webhook secret: the listener would accept forged events, so it does not start', [
        `set ${DEFAULT_SECRET_ENV} (or name another variable with --secret-env VAR),`,
        'or, to accept unsigned events on purpose, add --no-verify',
      ]);
    }
    // 256 bits, URL-safe: it goes through a shell and an environment variable unquoted.
    generated = randomBytes(32).toString('base64url');
  }
  const storeDir = storeDirFrom(input, ctx.env);
  // Written before the 2xx either way (a killed listener loses nothing it acknowledged); --fsync
  // also waits for the disk, for a machine that may lose power.
  const fsync = input.flag('fsync');
  if (fsync && storeDir === undefined) throw new UsageError('--fsync and --no-store contradict each other: there is nothing to sync');
  const forwardTo = input.string('forwardTo');
  if (forwardTo !== undefined) {
    try {
      checkForwardUrl(forwardTo);
    } catch (error) {
      throw new UsageError(`--forward-to: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const secrets = given ?? (generated === undefined ? undefined : [generated]);
  return { port, host, secrets, generated, storeDir, fsync, basicAuth: basicAuthFromEnv(ctx, input), forwardTo };
}

async function listenOutput(ctx: Context): Promise<ListenOutput> {
  const json = ctx.globals.output !== 'table';
  // --json lines are written as JSON.stringify wrote them when piped (writeExact); the lines for
  // people pass the terminal-safe boundary.
  return {
    json,
    stdoutPalette: json ? plainPalette : await terminalPalette(ctx.io.colorStdout),
    stderrPalette: await terminalPalette(ctx.io.colorStderr),
    counts: { events: 0, duplicates: 0, refused: 0 },
    out: batchedWriter((text) => (json ? writeExact(ctx.io.stdout, text) : ctx.io.stdout.write(text))),
    err: batchedWriter((text) => ctx.io.stderr.write(text)),
  };
}

/** The event store, compacted, with the delivery ids it already holds (for deduplication). */
function openStore(ctx: Context, options: ListenOptions): { store: EventStoreWriter; storedIds: string[] } | undefined {
  if (options.storeDir === undefined) return undefined;
  let opened: { store: EventStoreWriter; storedIds: string[] };
  try {
    compactQuietly(options.storeDir);
    const storedIds = recentIds(options.storeDir, DEDUPE_WINDOW);
    opened = { storedIds, store: EventStoreWriter.open(options.storeDir, { ack: options.fsync ? 'fsync' : 'write' }) };
  } catch (error) {
    throw new CliError(`cannot open the event store ${options.storeDir}: ${error instanceof Error ? error.message : String(error)}`, ExitCode.Failure, {
      hints: ['choose another directory with --store DIR, or run without storing with --no-store'],
    });
  }
  ctx.onClose(() => opened.store.close());
  return opened;
}

async function startListening(ctx: Context, options: ListenOptions, output: ListenOutput, stored: ReturnType<typeof openStore>): Promise<WebhookListener> {
  const { out, err, counts, json, stdoutPalette, stderrPalette } = output;
  // Opt-outs and opt-ins by keyword go to the list beside the store (the default store's with
  // --no-store: the list is kept whether or not events are), each one on disk before the 200.
  const consent = listenerConsent({
    dir: options.storeDir ?? defaultStoreDir(ctx.env),
    by: `svc webhook listen on ${hostname()}`,
    warn: (message) => err.write(`${stderrPalette.yellow('warning:')} ${message}\n`),
    settingsOf: consentSettingsReader(ctx),
    store: stored?.store,
    changed: (change) => {
      const sender = change.from === '*' ? 'every number' : change.from;
      const line = change.op === 'out' ? `${change.number} opted out of ${sender} (${change.keyword ?? ''})` : `${change.number} opted back in to ${sender} (${change.keyword ?? ''})`;
      err.write(`${line}\n`);
    },
  });
  const { host, port, secrets, basicAuth, forwardTo } = options;
  try {
    return await startWebhookListener(
      { host, port, dedupeCapacity: DEDUPE_WINDOW, ...(secrets ? { secrets } : {}), ...(basicAuth ? { basicAuth } : {}), ...(forwardTo ? { forwardTo } : {}), ...(stored ?? {}), consent },
      {
        accepted(event) {
          if (event.duplicate) {
            counts.duplicates += 1;
            err.write(`${formatEventLine(event, { palette: stderrPalette })}\n`);
            return;
          }
          counts.events += 1;
          out.write(`${json ? formatEventJsonLine(event) : formatEventLine(event, { palette: stdoutPalette })}\n`);
        },
        rejected(rejection) {
          counts.refused += 1;
          err.write(`${stderrPalette.yellow('warning:')} ${formatRejectionLine(rejection, { palette: stderrPalette })}\n`);
        },
      },
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new CliError(`port ${port} on ${host} is already in use; choose another with --port`, ExitCode.Failure);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new UsageError(`--host ${host} is not an address of this machine`);
    if (code === 'EACCES') throw new CliError(`not allowed to listen on port ${port}; use a port above 1023`, ExitCode.Failure);
    throw error;
  }
}

/** The start line: where it listens and what it checks; first, a generated secret and how to use it. */
function announce(ctx: Context, options: ListenOptions, listener: WebhookListener): void {
  const { secrets, storeDir, fsync, basicAuth, forwardTo, host } = options;
  if (options.generated !== undefined) showGeneratedSecret(ctx, options.generated, listener.url);
  if (secrets === undefined) ctx.warn('--no-verify: signatures are NOT checked; anyone who can reach the port can post events');
  const checks = [
    secrets === undefined ? 'signatures NOT checked' : `signatures checked${secrets.length > 1 ? ` against ${secrets.length} secrets` : ''}`,
    storeDir === undefined ? 'not storing (--no-store)' : `storing in ${storeDir}${fsync ? ', synced before each answer' : ''}`,
    basicAuth === undefined ? undefined : 'Basic auth required',
    forwardTo === undefined ? undefined : `forwarding to ${forwardTo}`,
  ].filter((part): part is string => part !== undefined);
  ctx.io.stderr.write(`Listening on ${listener.url} (${checks.join(', ')}). Ctrl-C to stop.\n`);
  if (!isLoopbackHost(host)) ctx.warn(`${host} is not a loopback address: anyone who can reach this machine can post events`);
}

/**
 * The secret made for this run, shown this once, and the two lines that give it to a tenant:
 * the variable to export in the shell where `svc tenant update` runs, and that command. Then the
 * secret joins the run's secrets, which every output stream hides: nothing prints it again.
 */
function showGeneratedSecret(ctx: Context, secret: string, url: string): void {
  let tenant: string | undefined;
  try {
    tenant = ctx.settings().tenant;
  } catch {
    // No profile here (a listener needs none): the line names the placeholder instead.
  }
  const lines = [
    `No webhook secret was given, so this listener made one (shown only now):`,
    '',
    `  export ${DEFAULT_SECRET_ENV}=${secret}`,
    '',
    `Point a tenant at this listener: run that line in another shell, then`,
    '',
    // Continued with a backslash where the terminal is narrower: it still pastes as one command.
    ...wrapExample(`svc tenant update ${tenant ?? 'TENANT_ID'} --webhook-primary-uri ${url} --webhook-secret-env ${DEFAULT_SECRET_ENV}`, ctx.io.columns - 2).map((line) => `  ${line}`),
    '',
    ...(tenant === undefined ? ['(svc tenant list shows your tenant ids.)'] : []),
    `To keep the same secret next time, run the export line before svc webhook listen.`,
    '',
  ];
  ctx.io.stderr.write(`${lines.join('\n')}\n`);
  ctx.io.secrets.add(secret);
}

/**
 * A number's own opt-out words, read with the profile (or SVC_USERNAME/SVC_PASSWORD) when there
 * is one; a listener run without credentials uses the standard words, which it says once.
 */
function consentSettingsReader(ctx: Context): ((number: string) => Promise<ConsentSettings | undefined>) | undefined {
  let api: Promise<ApiClient> | undefined;
  return (number) => {
    api ??= ctx.api();
    return api.then((client) => readConsentSettings(client, number));
  };
}
