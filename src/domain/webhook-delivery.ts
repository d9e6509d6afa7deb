// One webhook delivery on the wire: its id, its body bytes, its headers and the time the
// endpoint has to answer. The sandbox delivers with these, and `svc webhook prove` imitates a
// delivery with the same ones, so that the two cannot drift apart.

import { randomBytes } from 'node:crypto';
import { signBody } from './signature.js';
import { WEBHOOK_DELIVERY_HEADER, WEBHOOK_EVENT_HEADER, WEBHOOK_SIGNATURE_HEADER, type WebhookEventKind } from './webhooks.js';

/** The endpoint has this long to answer; a later answer counts as a failure and the event is retried. */
export const WEBHOOK_ANSWER_TIMEOUT_MS = 10_000;

/**
 * The largest webhook body the service sends. Its API takes request bodies of at most 1 MB, so
 * the message text an incoming message carries is below that, and receivers are told to accept
 * 1 MB (the local listener does).
 */
export const LARGEST_WEBHOOK_BODY_BYTES = 1024 * 1024;

/** A fresh delivery id: the same on every retry of one event, new for the next event. */
export function newDeliveryId(): string {
  return `dlv_${randomBytes(12).toString('hex')}`;
}

/** The body as sent: compact JSON, UTF-8; the signature covers exactly these bytes. */
export function webhookBody(payload: unknown): Buffer {
  return Buffer.from(JSON.stringify(payload) ?? 'null', 'utf8');
}

export interface DeliveryHeaderSource {
  event: WebhookEventKind;
  deliveryId: string;
  body: Uint8Array;
  userAgent: string;
  /** No signature header without one. */
  secret?: string | undefined;
  /** Sent as `Authorization: Basic ...` when either part is set. */
  basicAuth?: { username?: string | undefined; password?: string | undefined } | undefined;
}

/** The headers of one delivery (Content-Length is the transport's to set). */
export function webhookDeliveryHeaders(source: DeliveryHeaderSource): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    'User-Agent': source.userAgent,
    [WEBHOOK_EVENT_HEADER]: source.event,
    [WEBHOOK_DELIVERY_HEADER]: source.deliveryId,
  };
  if (source.secret !== undefined && source.secret !== '') headers[WEBHOOK_SIGNATURE_HEADER] = signBody(source.body, source.secret);
  const username = source.basicAuth?.username ?? '';
  const password = source.basicAuth?.password ?? '';
  if (username !== '' || password !== '') headers['Authorization'] = basicAuthorization(username, password);
  return headers;
}

/** `Basic base64(user:password)`, the credentials as UTF-8. */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
}
