// Sending a stored event again: the body byte for byte as it was received, with its event and
// delivery headers and a new X-Svc-Signature under the given secret.

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { signBody } from './signature.js';

export interface ReplayAnswer {
  status: number;
  durationMs: number;
}

export interface StoredDelivery {
  /** The body as received. */
  body: Buffer;
  /** The delivery headers kept with it (lower-case names). */
  headers: Readonly<Record<string, string>>;
}

/** The headers of a replay: content type, event and delivery as stored, and a new signature. */
export function replayHeaders(delivery: StoredDelivery, secret: string): Record<string, string> {
  const headers: Record<string, string> = {
    'Content-Type': delivery.headers['content-type'] ?? 'application/json',
    'User-Agent': 'svc-cli events replay',
    'X-Svc-Signature': signBody(delivery.body, secret),
  };
  const eventName = delivery.headers['x-svc-event'];
  if (eventName !== undefined) headers['X-Svc-Event'] = eventName;
  const deliveryId = delivery.headers['x-svc-delivery'];
  if (deliveryId !== undefined) headers['X-Svc-Delivery'] = deliveryId;
  return headers;
}

/** POSTs the delivery, signed with `secret`, to `url`; resolves with the answer's status. */
export function replayDelivery(url: URL, delivery: StoredDelivery, secret: string, timeoutMs: number, signal: AbortSignal): Promise<ReplayAnswer> {
  const started = performance.now();
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const headers = replayHeaders(delivery, secret);
  return new Promise((resolve, reject) => {
    const outgoing = send(url, { method: 'POST', headers: { ...headers, 'Content-Length': String(delivery.body.length) }, signal });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer within ${Math.round(timeoutMs / 1000)} s`)));
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, durationMs: Math.round(performance.now() - started) }));
      response.on('error', reject);
    });
    outgoing.end(delivery.body);
  });
}
