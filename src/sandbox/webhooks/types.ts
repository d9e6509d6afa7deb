// The contract between the sandbox's API (which decides that an event happened) and its webhook
// dispatcher (which delivers it as docs/decisions.md#webhooks says: filter, signature, Basic auth, primary then
// secondary URI, retries with caps and Retry-After, the 24 h window and the failure queue).

import type { WebhookEventType } from '../../domain/api/enums.js';
import type { WebhookEventKind } from '../../domain/webhooks.js';
import type { DeliveryAttemptWire, FailedEventWire } from '../../domain/api/wire.js';

export type { WebhookEventKind } from '../../domain/webhooks.js';

/** The tenant's webhook settings, secrets in clear (the sandbox holds them). */
export interface WebhookTarget {
  tenantId: string;
  primaryUri?: string | undefined;
  secondaryUri?: string | undefined;
  secret?: string | undefined;
  basicAuthUsername?: string | undefined;
  basicAuthPassword?: string | undefined;
  eventType?: WebhookEventType | undefined;
}

/** One HTTP attempt at delivering an event, as GET /sandbox/webhooks/deliveries lists it. */
export type DeliveryAttempt = DeliveryAttemptWire;

/** An event that exhausted its retry window (or was refused for good), as the failure queue lists it. */
export type FailedEvent = FailedEventWire;

export interface WebhookDispatcherOptions {
  /** Every retry delay and the 24 h window are divided by this (default 1). */
  timeScale?: number;
  /** Per-attempt endpoint timeout in real milliseconds (default 10 000, not scaled). */
  attemptTimeoutMs?: number;
  /** Wall clock, injectable for tests. */
  now?: () => number;
  /** Called after any change worth persisting (queued, attempted, failed, replayed). */
  onChange?: () => void;
}

/** What the dispatcher needs to persist and reload with `--state`. */
export interface WebhookDispatcherState {
  pending: unknown[];
  failed: FailedEvent[];
  attempts: DeliveryAttempt[];
}

export interface WebhookDispatcher {
  /**
   * Queues an event for a tenant. Applies the tenant's event filter; does nothing (and returns
   * null) when the filter excludes the event or no primary URI is set. Returns the delivery id.
   */
  dispatch(target: WebhookTarget, event: WebhookEventKind, payload: unknown): string | null;
  /** Attempts so far, newest last (bounded history). */
  deliveries(): DeliveryAttempt[];
  /** The failure queue. */
  failed(): FailedEvent[];
  /** Moves a failed event back to the queue with a fresh window; false when the id is unknown. */
  replay(deliveryId: string, target: WebhookTarget): boolean;
  /** Resolves when every queued event has been delivered or has failed (for tests and the demo). */
  idle(): Promise<void>;
  snapshot(): WebhookDispatcherState;
  restore(state: WebhookDispatcherState): void;
  close(): Promise<void>;
}
