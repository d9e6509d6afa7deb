import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { isLoopbackHost } from '../../domain/urls.js';
import { formatEventJsonLine, formatEventLine, formatRejectionLine, plainPalette } from '../../webhooks/format.js';
import { checkForwardUrl, startWebhookListener } from '../../webhooks/listener.js';
import type { WebhookListener } from '../../webhooks/listener.js';
import type { InputFor } from '../spec.js';
import type { webhookCommands } from './index.js';
import { DEFAULT_LISTEN_PORT } from '../defaults.js';
import { basicAuthFromEnv, secretsFromEnv } from './shared/webhook-inputs.js';
import { terminalPalette } from '../../output/palette.js';
import { EventStoreWriter } from '../../events/store/writer.js';
import { hostname } from 'node:os';
import { defaultStoreDir } from '../../events/paths.js';
import { listenerConsent } from '../../optouts/listener-consent.js';
import { readConsentSettings } from '../../optouts/settings.js';
import type { ConsentSettings } from '../../optouts/keywords.js';
import type { ApiClient } from '../../api/http.js';
import { recentIds } from '../../events/store/reader.js';
import { compactQuietly } from '../../events/store/compact.js';
import { batchedWriter, nonBlank, storeDirFrom } from '../events/shared/store-options.js';
import { writeExact } from '../../output/io.js';

/** Deliveries remembered for deduplication, also across restarts (read back from the store). */
const DEDUPE_WINDOW = 100_000;

export async function run(input: InputFor<typeof webhookCommands, 'webhook listen'>, ctx: Context): Promise<number> {
  const port = input.number('port', '--port', { min: 0, max: 65535, integer: true }) ?? DEFAULT_LISTEN_PORT;
  // A blank host would bind every interface: refused, not taken as "any address".
  const host = nonBlank(input.string('host') ?? '127.0.0.1', '--host', 'an address of this machine (default 127.0.0.1)');
  const secrets = secretsFromEnv(ctx, input, { optional: true });
  const noVerify = input.has('verify') && !input.flag('verify');
  if (secrets === undefined && !noVerify) {
    throw new UsageError('no webhook secret: the listener would accept forged events, so it does not start', [
      'set SVC_WEBHOOK_SECRET (or name another variable with --secret-env VAR),',
      'or, to accept unsigned events on purpose, add --no-verify',
    ]);
  }
  if (secrets !== undefined && noVerify) throw new UsageError('--no-verify and a webhook secret (--secret-env or SVC_WEBHOOK_SECRET) contradict each other');
  const storeDir = storeDirFrom(input, ctx.env);
  // Written before the 2xx either way (a killed listener loses nothing it acknowledged); --fsync
  // also waits for the disk, for a machine that may lose power.
  const fsync = input.flag('fsync');
  if (fsync && storeDir === undefined) throw new UsageError('--fsync and --no-store contradict each other: there is nothing to sync');
  const basicAuth = basicAuthFromEnv(ctx, input);
  const forwardTo = input.string('forwardTo');
  if (forwardTo !== undefined) {
    try {
      checkForwardUrl(forwardTo);
    } catch (error) {
      throw new UsageError(`--forward-to: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  const json = ctx.globals.output !== 'table';
  const stdoutPalette = json ? plainPalette : await terminalPalette(ctx.io.colorStdout);
  const stderrPalette = await terminalPalette(ctx.io.colorStderr);
  const counts = { events: 0, duplicates: 0, refused: 0 };
  // Output is gathered and written once per event-loop turn: one write for every event of a burst.
  // --json lines are written as JSON.stringify wrote them when piped (writeExact); the lines for
  // people pass the terminal-safe boundary.
  const out = batchedWriter((text) => (json ? writeExact(ctx.io.stdout, text) : ctx.io.stdout.write(text)));
  const err = batchedWriter((text) => ctx.io.stderr.write(text));

  let store: EventStoreWriter | undefined;
  let storedIds: string[] = [];
  if (storeDir !== undefined) {
    try {
      compactQuietly(storeDir);
      storedIds = recentIds(storeDir, DEDUPE_WINDOW);
      store = EventStoreWriter.open(storeDir, { ack: fsync ? 'fsync' : 'write' });
    } catch (error) {
      throw new CliError(`cannot open the event store ${storeDir}: ${error instanceof Error ? error.message : String(error)}`, ExitCode.Failure, {
        hints: ['choose another directory with --store DIR, or run without storing with --no-store'],
      });
    }
    const opened = store;
    ctx.onClose(() => opened.close());
  }

  // Opt-outs and opt-ins by keyword go to the list beside the store (the default store's with
  // --no-store: the list is kept whether or not events are), each one on disk before the 200.
  const consent = listenerConsent({
    dir: storeDir ?? defaultStoreDir(ctx.env),
    by: `svc webhook listen on ${hostname()}`,
    warn: (message) => err.write(`${stderrPalette.yellow('warning:')} ${message}\n`),
    settingsOf: consentSettingsReader(ctx),
    store,
    changed: (change) => {
      const sender = change.from === '*' ? 'every number' : change.from;
      const line = change.op === 'out' ? `${change.number} opted out of ${sender} (${change.keyword ?? ''})` : `${change.number} opted back in to ${sender} (${change.keyword ?? ''})`;
      err.write(`${line}\n`);
    },
  });

  let listener: WebhookListener;
  try {
    listener = await startWebhookListener(
      {
        host,
        port,
        dedupeCapacity: DEDUPE_WINDOW,
        ...(secrets ? { secrets } : {}),
        ...(basicAuth ? { basicAuth } : {}),
        ...(forwardTo ? { forwardTo } : {}),
        ...(store ? { store, storedIds } : {}),
        consent,
      },
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
          const warning = stderrPalette.yellow('warning:');
          err.write(`${warning} ${formatRejectionLine(rejection, { palette: stderrPalette })}\n`);
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
  ctx.onClose(() => listener.close());

  if (secrets === undefined) ctx.warn('--no-verify: signatures are NOT checked; anyone who can reach the port can post events');
  const checks = [
    secrets === undefined
      ? 'signatures NOT checked'
      : `signatures checked${secrets.length > 1 ? ` against ${secrets.length} secrets` : ''}`,
    storeDir === undefined ? 'not storing (--no-store)' : `storing in ${storeDir}${fsync ? ', synced before each answer' : ''}`,
    basicAuth === undefined ? undefined : 'Basic auth required',
    forwardTo === undefined ? undefined : `forwarding to ${forwardTo}`,
  ].filter((part): part is string => part !== undefined);
  ctx.io.stderr.write(`Listening on ${listener.url} (${checks.join(', ')}). Ctrl-C to stop.\n`);
  if (!isLoopbackHost(host)) ctx.warn(`${host} is not a loopback address: anyone who can reach this machine can post events`);

  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await listener.close();
  out.flush();
  err.flush();
  ctx.io.stderr.write(
    `Stopped: ${counts.events} event${counts.events === 1 ? '' : 's'}, ${counts.duplicates} duplicate${counts.duplicates === 1 ? '' : 's'}, ${counts.refused} refused.\n`,
  );
  // The contract gives Ctrl-C exit 130 everywhere; the listener has closed cleanly by now.
  return ExitCode.Interrupted;
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
