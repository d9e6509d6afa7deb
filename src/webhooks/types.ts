// What the listener reports and takes: shared by the listener's parts, the command that prints,
// the demo and the event store's views.

import type { WebhookEventKind, WebhookEventSummary } from './payloads.js';

export interface BasicCredentials {
  username: string;
  password: string;
}

export interface ForwardResult {
  url: string;
  /** The app's status, or null when it could not be reached or did not answer in time. */
  status: number | null;
  durationMs: number;
  error: string | null;
}

export interface AcceptedWebhookEvent {
  receivedAt: Date;
  method: string;
  path: string;
  kind: WebhookEventKind;
  /** The X-Svc-Event header as sent, or null. */
  eventHeader: string | null;
  summary: WebhookEventSummary;
  payload: unknown;
  /** The body exactly as received, decoded as UTF-8 (it is valid JSON). */
  raw: string;
  deliveryId: string | null;
  /** `delivery:<X-Svc-Delivery>` or `sha256:<hex of the body>`. */
  dedupeKey: string;
  /** A retry of an event already acknowledged: answered 200 and not relayed again. */
  duplicate: boolean;
  /** Kept in the event store by this delivery (false without a store, and for a retry already kept). */
  stored: boolean;
  signature: 'valid' | 'unchecked';
  /** Which configured secret matched (0 = current), or null when unchecked. */
  secretIndex: number | null;
  /** The status answered to the sender. */
  status: number;
  forward: ForwardResult | null;
}

export interface RejectedWebhookRequest {
  receivedAt: Date;
  method: string;
  path: string;
  remoteAddress: string | null;
  status: number;
  reason: string;
  deliveryId: string | null;
}

/** Where the listener reports; the command prints, tests collect. */
export interface WebhookSink {
  accepted(event: AcceptedWebhookEvent): void;
  rejected(request: RejectedWebhookRequest): void;
}
