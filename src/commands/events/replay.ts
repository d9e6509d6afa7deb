import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { checkForwardUrl } from '../../webhooks/relay.js';
import { replayDelivery, type ReplayAnswer } from '../../webhooks/replay.js';
import { writeJson, writeNdjson } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { eventsCommands } from './index.js';
import { secretsFromEnv } from '../webhook/shared/webhook-inputs.js';
import { findEvent, openReader, requireId } from './shared/event-queries.js';

export async function run(input: InputFor<typeof eventsCommands, 'events replay'>, ctx: Context): Promise<number> {
  const id = requireId(input);
  const to = input.string('to');
  if (to === undefined) throw new UsageError('--to URL is required: where to send the event again');
  let url: URL;
  try {
    url = checkForwardUrl(to);
  } catch (error) {
    throw new UsageError(`--to: ${error instanceof Error ? error.message.replace('forward URL', 'URL') : String(error)}`);
  }
  const secret = secretsFromEnv(ctx, input, { single: true })?.[0];
  if (secret === undefined) throw new UsageError('a secret to sign with is required: --secret-env VAR');
  const { dir, reader } = openReader(input, ctx);
  const record = findEvent(reader, dir, id);
  if (record.kind !== 'event') throw new UsageError(`${id} is a sent message, not a received event: only events can be replayed`);

  // The bytes as received: the stored text is the body decoded as UTF-8 (it was checked to be
  // valid), a leading BOM included, so encoding it again gives those bytes back.
  const body = Buffer.from(record.body, 'utf8');
  let answer: ReplayAnswer;
  try {
    answer = await replayDelivery(url, { body, headers: record.headers ?? {} }, secret, ctx.globals.timeoutMs, ctx.signal, ctx.globals.debug ? (line) => ctx.debug(line) : undefined);
  } catch (error) {
    throw new CliError(`could not replay ${id} to ${url.href}: ${error instanceof Error ? error.message : String(error)}`, ExitCode.Failure);
  }
  const result = { id, url: url.href, status: answer.status, durationMs: answer.durationMs, bytes: body.length };
  if (ctx.globals.output === 'json') writeJson(ctx, result);
  else if (ctx.globals.output === 'ndjson') writeNdjson(ctx, result);
  else ctx.io.stdout.write(`Replayed ${id} to ${url.href}: ${answer.status} in ${answer.durationMs} ms (${body.length} bytes, signed again)\n`);
  if (answer.status < 200 || answer.status >= 300) {
    throw new CliError(`${url.href} answered ${answer.status} to the replay of ${id}`, ExitCode.Failure, { status: answer.status });
  }
  return 0;
}
