// One delivery attempt of one event: the primary URI, then at once the secondary when the
// primary failed; signed and authenticated as the tenant asked; each request in the history.

import type { OutgoingHttpHeaders } from 'node:http';
import { webhookDeliveryHeaders } from '../../domain/webhook-delivery.js';
import type { AttemptHistory } from './attempt-history.js';
import type { DeliveryRecord } from './delivery-record.js';
import { urlWithoutCredentials } from '../../domain/urls.js';
import { postWebhook, webhookUriRefusal, type AttemptOutcome, type InFlightPost, type WebhookAgents } from './post-webhook.js';
import type { WebhookTarget } from './types.js';

export const WEBHOOK_USER_AGENT = 'svc-sandbox-webhooks/1';

export interface DeliveryContext {
  agents: WebhookAgents;
  attemptTimeoutMs: number;
  now: () => number;
  history: AttemptHistory;
  /** Sees each request while it is under way, so that close() can abort it. */
  posts: Set<InFlightPost>;
  /** True once the dispatcher is closing: an answer that arrives then is not acted on. */
  closing: () => boolean;
}

export type AttemptResult =
  /** The target must not be called at all (checked again before every attempt). */
  | { kind: 'refused'; reason: string; startedAt: number }
  /** close() cut the attempt short: it says nothing about the endpoint. */
  | { kind: 'aborted' }
  /** The answers, primary first; the last one decides whether the event was delivered. */
  | { kind: 'answered'; outcomes: AttemptOutcome[]; startedAt: number; endedAt: number };

export async function attemptDelivery(record: DeliveryRecord, ctx: DeliveryContext): Promise<AttemptResult> {
  const startedAt = ctx.now();
  const refusal = targetRefusal(record.target);
  if (refusal !== null) return { kind: 'refused', reason: refusal, startedAt };
  const uris = [record.target.primaryUri, record.target.secondaryUri].filter((uri): uri is string => uri !== undefined && uri !== '');
  const headers = deliveryHeaders(record);
  const outcomes: AttemptOutcome[] = [];
  for (const uri of uris) {
    const url = new URL(uri);
    const at = ctx.now();
    const started = performance.now();
    const post = postWebhook({ url, body: record.bytes, headers, timeoutMs: ctx.attemptTimeoutMs, agents: ctx.agents });
    ctx.posts.add(post);
    const outcome = await post.outcome;
    ctx.posts.delete(post);
    if (outcome.aborted || ctx.closing()) return { kind: 'aborted' };
    outcomes.push(outcome);
    ctx.history.add({
      deliveryId: record.deliveryId,
      event: record.event,
      tenantId: record.target.tenantId,
      attempt: record.attempts + 1,
      url: urlWithoutCredentials(url),
      status: outcome.status,
      error: outcome.error,
      at: new Date(at).toISOString(),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
    if (outcome.error === null) break;
  }
  return { kind: 'answered', outcomes, startedAt, endedAt: ctx.now() };
}

function deliveryHeaders(record: DeliveryRecord): OutgoingHttpHeaders {
  const { secret, basicAuthUsername: username, basicAuthPassword: password } = record.target;
  return webhookDeliveryHeaders({
    event: record.event,
    deliveryId: record.deliveryId,
    body: record.bytes,
    userAgent: WEBHOOK_USER_AGENT,
    secret,
    basicAuth: { username, password },
  });
}

/** Why this target must not be called at all, or null. */
function targetRefusal(target: WebhookTarget): string | null {
  if (target.primaryUri === undefined || target.primaryUri === '') return 'refused: the tenant has no webhook primary URI';
  const primary = webhookUriRefusal(target.primaryUri);
  if (primary !== null) return primary;
  if (target.secondaryUri === undefined || target.secondaryUri === '') return null;
  return webhookUriRefusal(target.secondaryUri);
}
