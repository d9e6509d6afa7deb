import type { Context } from '../../context.js';
import { NotFoundError, UsageError } from '../../errors.js';
import { MAX_MEDIA_PER_MESSAGE } from '../../domain/media-formats.js';
import { isHttpsOrLoopbackUrl } from '../../domain/urls.js';
import { getTenant } from '../../api/tenants.js';
import { simulateInbound, type InboundMessage } from '../../api/sandbox.js';
import { writeObject } from '../../output/render.js';
import { requireE164 } from '../../input/checks.js';
import type { InputFor } from '../spec.js';
import type { sandboxCommands } from './index.js';
import { overridesFrom } from './shared/trigger-overrides.js';

/** https://, or http:// on loopback: the sandbox's own media links are plain HTTP on 127.0.0.1. */
function requireMediaUrl(value: string): string {
  const text = value.trim();
  if (isHttpsOrLoopbackUrl(text)) return text;
  throw new UsageError(`--media "${value}" must be an https:// link (or http:// on a loopback host, like the sandbox's own media links)`);
}

/** The sender the request carries when only `--set from=...` names one (the override wins in the payload). */
const OVERRIDDEN_SENDER = '+15550000001';

export function inboundFrom(input: InputFor<typeof sandboxCommands, 'sandbox inbound' | 'sandbox trigger message-received'>): InboundMessage {
  const toFlag = input.string('to');
  const fromFlag = input.string('from');
  const mediaFlags = input.strings('media');
  // --from, --body and --media are shorthands for --set from=, message= and attachments=.
  // They travel as request fields (the sandbox turns --media links into attachments).
  const set = overridesFrom(
    input,
    {
      from: { flag: '--from', value: fromFlag },
      message: { flag: '--body', value: input.string('body') },
      attachments: { flag: '--media', value: mediaFlags.length > 0 ? mediaFlags : undefined },
    },
    false,
  );
  if (toFlag === undefined) throw new UsageError('--to is required: your sandbox number that receives the message');
  if (fromFlag === undefined && !('from' in set)) throw new UsageError('--from is required: the number the message comes from');
  const to = requireE164(toFlag, '--to');
  const from = fromFlag !== undefined ? requireE164(fromFlag, '--from') : OVERRIDDEN_SENDER;
  const mediaUrls = mediaFlags.map(requireMediaUrl);
  if (mediaUrls.length > MAX_MEDIA_PER_MESSAGE) throw new UsageError(`--media is given ${mediaUrls.length} times; a message has at most ${MAX_MEDIA_PER_MESSAGE} media`);
  const override = set['message'];
  const body = input.string('body') ?? (typeof override === 'string' && override !== '' ? override : '');
  if (body === '' && mediaUrls.length === 0 && !('message' in set)) {
    throw new UsageError('--body is required (it may be left out only when --media or --set message=... is given)');
  }
  return {
    to,
    from,
    body: body === '' && mediaUrls.length === 0 ? '(overridden)' : body,
    ...(mediaUrls.length > 0 ? { mediaUrls } : {}),
    ...(Object.keys(set).length > 0 ? { set } : {}),
  };
}

/** Why no webhook went out, from the tenant's settings; a general reason when they cannot be read. */
async function whyNoWebhook(ctx: Context, tenantId: unknown): Promise<string> {
  const general = "the tenant of --to has no webhook URI, or its event filter (webhookEventType) leaves out MessageReceived";
  if (typeof tenantId !== 'string') return general;
  try {
    const tenant = await getTenant(await ctx.api(), tenantId);
    const settings = { ...tenant, ...(tenant.settings ?? {}) };
    const filter = settings['webhookEventType'];
    if (typeof filter === 'string' && filter !== 'All' && filter !== 'MessageReceived') {
      return `tenant ${tenantId} receives only ${filter} events (set --webhook-event-type All or MessageReceived with svc tenant update)`;
    }
    if (!settings['webhookPrimaryUri'] && !settings['webhookSecondaryUri']) {
      return `tenant ${tenantId} has no webhook URI (set one with svc tenant update ${tenantId} --webhook-primary-uri URL)`;
    }
  } catch {
    // The note is a courtesy; the inbound message itself was accepted.
  }
  return general;
}

export async function run(input: InputFor<typeof sandboxCommands, 'sandbox inbound' | 'sandbox trigger message-received'>, ctx: Context): Promise<number> {
  const message = inboundFrom(input);
  const api = await ctx.api();
  let result;
  try {
    result = await simulateInbound(api, message);
  } catch (error) {
    // The sandbox has this endpoint for every account, so a 404 means the profile is not a sandbox.
    if (error instanceof NotFoundError) {
      throw new NotFoundError(`${api.baseUrl} has no sandbox endpoint (${error.message}): svc sandbox inbound works only against a sandbox (svc sandbox start)`, {
        status: 404,
        ...(error.errorCode !== undefined ? { errorCode: error.errorCode } : {}),
      });
    }
    throw error;
  }
  const payload = result.payload;
  if (ctx.globals.output !== 'table') {
    await writeObject(ctx, result);
  } else {
    await writeObject(
      ctx,
      {
        deliveryId: result.deliveryId,
        messageId: payload['messageId'],
        tenantId: payload['tenantId'],
        from: payload['from'],
        to: payload['targetNumber'] ?? message.to,
        message: payload['message'],
        attachments: Array.isArray(payload['attachments']) ? payload['attachments'].length : 0,
      },
      { title: 'Inbound message' },
    );
  }
  if (result.deliveryId === null) {
    ctx.io.stderr.write(`No webhook was sent: ${await whyNoWebhook(ctx, payload['tenantId'])}.\n`);
  } else {
    ctx.io.stderr.write(`MessageReceived webhook queued for the tenant (delivery ${result.deliveryId}).\n`);
  }
  return 0;
}
