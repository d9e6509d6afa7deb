import type { Context } from '../../context.js';
import { CliError, ExitCode } from '../../errors.js';
import { writeJson } from '../../output/render.js';
import { plainPalette, terminalPalette } from '../../output/palette.js';
import { VERSION } from '../../version.js';
import { renderReport, renderRows, summaryLine } from '../../webhooks/prove/report.js';
import { proveReceiver, ReceiverUnreachable, type ProveResult } from '../../webhooks/prove/run.js';
import { receiverUrl } from '../../webhooks/prove/target.js';
import type { InputFor } from '../spec.js';
import type { webhookCommands } from './index.js';
import { basicAuthFromEnv, secretsFromEnv } from './shared/webhook-inputs.js';

/** The exit code of a run in which a required check failed (the contract's "found differences"). */
export const REQUIRED_CHECK_FAILED = 7;

/** Each request's default bound: a little over the service's 10 s, so that a late answer is seen as late. */
export const DEFAULT_PROVE_TIMEOUT_S = 12;
/** The whole run is bounded by this many per-request timeouts. */
const DEADLINE_TIMEOUTS = 10;

export async function run(input: InputFor<typeof webhookCommands, 'webhook prove'>, ctx: Context): Promise<number> {
  // Every argument is checked, and every secret read, before the first request.
  const url = receiverUrl(input.arg(0) ?? '');
  const [secret] = secretsFromEnv(ctx, input, { single: true }) ?? [];
  const basicAuth = basicAuthFromEnv(ctx, input);
  const timeoutS = input.number('timeout', '--timeout', { min: 0.1, max: 120 }) ?? DEFAULT_PROVE_TIMEOUT_S;
  ctx.io.secrets.add(secret);
  if (basicAuth) {
    ctx.io.secrets.add(basicAuth.password);
    ctx.io.secrets.add(`${basicAuth.username}:${basicAuth.password}`);
  }

  const progress = ctx.io.stderrIsTTY && ctx.globals.output === 'table' ? await import('../../output/spinner.js').then((m) => m.startSpinner(ctx, `checking ${url.host}`)) : undefined;
  const started = ctx.clock.now();
  let result: ProveResult;
  try {
    result = await proveReceiver({
      url,
      secret: secret ?? '',
      basicAuth,
      timeoutMs: Math.round(timeoutS * 1000),
      deadlineMs: Math.round(timeoutS * 1000 * DEADLINE_TIMEOUTS),
      clock: ctx.clock,
      signal: ctx.signal,
      userAgent: `svc-webhook-prove/${VERSION}`,
      onCheck: (index, total, name) => {
        if (progress) {
          progress.text = `checking ${url.host}: ${index + 1}/${total} ${name}`;
          // Drawn now, not at the spinner's next frame: a quick receiver answers between frames.
          progress.render();
        }
      },
    });
  } catch (error) {
    if (error instanceof ReceiverUnreachable) {
      throw new CliError(error.message, ExitCode.Failure, { hints: ['is the receiver running, and is this its address? nothing was checked'] });
    }
    throw error;
  } finally {
    progress?.stop();
  }
  const elapsedMs = ctx.clock.now() - started;

  if (ctx.globals.output === 'json') writeJson(ctx, result);
  else if (ctx.globals.output === 'ndjson') ctx.io.stdout.write(`${JSON.stringify(result)}\n`);
  else if (ctx.io.stdoutIsTTY) {
    const palette = ctx.io.colorStdout ? await terminalPalette(true) : plainPalette;
    ctx.io.stdout.write(renderReport(result, { columns: ctx.io.columns, palette, elapsedMs }));
  } else {
    ctx.io.stdout.write(renderRows(result));
    ctx.io.stderr.write(`${summaryLine(result)}\n`);
  }
  return result.passed ? 0 : REQUIRED_CHECK_FAILED;
}
