import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import type { Context } from '../../context.js';
import { CliError, ExitCode, UsageError } from '../../errors.js';
import { checkForwardUrl } from '../../webhooks/listener.js';
import { signBody } from '../../webhooks/signature.js';
import { writeJson, writeNdjson } from '../../output/render.js';
import type { InputFor } from '../spec.js';
import type { eventsCommands } from './index.js';
import { secretsFromEnv } from '../webhook/inputs.js';
import { findEvent, openReader, requireId } from './shared.js';

interface Answer {
  status: number;
  durationMs: number;
}

function post(url: URL, body: Buffer, headers: Record<string, string>, timeoutMs: number, signal: AbortSignal): Promise<Answer> {
  const started = performance.now();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(body.length) }, signal });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, durationMs: Math.round(performance.now() - started) }));
      response.on('error', reject);
    });
    outgoing.end(body);
  });
}

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

  // The bytes as received: the stored text is the body decoded as UTF-8 (it was checked to be valid).
  const body = Buffer.from(record.body, 'utf8');
  const headers: Record<string, string> = {
    'Content-Type': record.headers?.['content-type'] ?? 'application/json',
    'User-Agent': 'svc-cli events replay',
    'X-Svc-Signature': signBody(body, secret),
  };
  const eventName = record.headers?.['x-svc-event'];
  if (eventName !== undefined) headers['X-Svc-Event'] = eventName;
  const delivery = record.headers?.['x-svc-delivery'];
  if (delivery !== undefined) headers['X-Svc-Delivery'] = delivery;

  let answer: Answer;
  try {
    answer = await post(url, body, headers, ctx.globals.timeoutMs, ctx.signal);
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
