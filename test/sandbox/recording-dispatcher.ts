// A test double of the webhook dispatcher: it records every event the sandbox hands over, holds
// a failure queue the test fills, and round-trips through snapshot/restore like the real one.

import { randomUUID } from 'node:crypto';
import type {
  DeliveryAttempt,
  FailedEvent,
  WebhookDispatcher,
  WebhookDispatcherState,
  WebhookEventKind,
  WebhookTarget,
} from '../../src/sandbox/webhooks/types.js';

export interface RecordedEvent {
  deliveryId: string;
  target: WebhookTarget;
  event: WebhookEventKind;
  payload: unknown;
}

interface EventWaiter {
  kind: WebhookEventKind;
  match: (payload: Record<string, unknown>) => boolean;
  resolve: (event: RecordedEvent) => void;
}

export class RecordingDispatcher implements WebhookDispatcher {
  readonly events: RecordedEvent[] = [];
  private readonly waiters = new Set<EventWaiter>();
  readonly replays: { deliveryId: string; target: WebhookTarget }[] = [];
  attempts: DeliveryAttempt[] = [];
  failedEvents: FailedEvent[] = [];
  restored: WebhookDispatcherState | undefined;
  closed = false;

  dispatch(target: WebhookTarget, event: WebhookEventKind, payload: unknown): string | null {
    const deliveryId = randomUUID();
    // Deep copy, so that later changes to the sandbox's records do not rewrite history.
    const recorded: RecordedEvent = { deliveryId, target: { ...target }, event, payload: JSON.parse(JSON.stringify(payload)) };
    this.events.push(recorded);
    for (const waiter of this.waiters) {
      if (matches(waiter, recorded)) {
        this.waiters.delete(waiter);
        waiter.resolve(recorded);
      }
    }
    return deliveryId;
  }

  /** The first event of `kind` whose payload matches, recorded already or when it is dispatched. */
  waitFor(kind: WebhookEventKind, match: (payload: Record<string, unknown>) => boolean = () => true): Promise<RecordedEvent> {
    const waiter: Omit<EventWaiter, 'resolve'> = { kind, match };
    const found = this.events.find((e) => matches(waiter, e));
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.add({ ...waiter, resolve }));
  }

  eventsOf(kind: WebhookEventKind): RecordedEvent[] {
    return this.events.filter((e) => e.event === kind);
  }

  deliveries(): DeliveryAttempt[] {
    return this.attempts;
  }

  failed(): FailedEvent[] {
    return this.failedEvents;
  }

  replay(deliveryId: string, target: WebhookTarget): boolean {
    const index = this.failedEvents.findIndex((f) => f.deliveryId === deliveryId);
    if (index < 0) return false;
    this.failedEvents.splice(index, 1);
    this.replays.push({ deliveryId, target });
    return true;
  }

  idle(): Promise<void> {
    return Promise.resolve();
  }

  snapshot(): WebhookDispatcherState {
    return { pending: [], failed: this.failedEvents, attempts: this.attempts };
  }

  restore(state: WebhookDispatcherState): void {
    this.restored = state;
    this.failedEvents = [...state.failed];
    this.attempts = [...state.attempts];
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

function matches(waiter: Omit<EventWaiter, 'resolve'>, event: RecordedEvent): boolean {
  const payload = event.payload;
  return event.event === waiter.kind && typeof payload === 'object' && payload !== null && waiter.match(payload as Record<string, unknown>);
}
