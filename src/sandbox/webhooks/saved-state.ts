// The shapes the dispatcher saves with `--state` and checks again on restore(): whatever a
// damaged or hand-edited state file holds, an entry that does not have its shape is dropped
// rather than crashing the dispatcher later. Each shape is one table of field checks.

import { WEBHOOK_EVENT_TYPES } from '../../domain/api/enums.js';
import { isWebhookEventKind } from '../../domain/webhooks.js';
import type { DeliveryAttempt, FailedEvent, WebhookEventKind, WebhookTarget } from './types.js';

/**
 * One event not yet delivered nor failed, as saved by snapshot(). Times are epoch
 * milliseconds of the dispatcher's clock (`now`), exact so that the schedule can be checked.
 */
export interface PendingDelivery {
  deliveryId: string;
  event: WebhookEventKind;
  target: WebhookTarget;
  /** The serialized payload, sent byte for byte on every attempt. */
  body: string;
  /** Completed attempts (each: primary, then secondary if the primary failed). */
  attempts: number;
  firstAttemptAtMs: number | null;
  /** When the last attempt's outcome was known; the retry wait counts from there. */
  lastAttemptAtMs: number | null;
  nextAttemptAtMs: number;
  lastStatus: number | null;
  lastError: string | null;
}

type Check = (value: unknown) => boolean;

const isString: Check = (v) => typeof v === 'string';
const isNumber: Check = (v) => typeof v === 'number';
const isFiniteNumber: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const isCount: Check = (v) => typeof v === 'number' && Number.isInteger(v) && v >= 0;
const isNullableNumber: Check = (v) => v === null || isFiniteNumber(v);
const isNullableString: Check = (v) => v === null || isString(v);
const isOptionalString: Check = (v) => v === undefined || v === null || isString(v);
const isPresent: Check = (v) => v !== undefined;
const isEventType: Check = (v) => v === undefined || (typeof v === 'string' && (WEBHOOK_EVENT_TYPES as readonly string[]).includes(v));

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shape<T>(fields: Readonly<Record<string, Check>>): (value: unknown) => value is T {
  const entries = Object.entries(fields);
  return (value: unknown): value is T => isRecord(value) && entries.every(([key, check]) => check(value[key]));
}

export const isWebhookTarget = shape<WebhookTarget>({
  tenantId: isString,
  primaryUri: isOptionalString,
  secondaryUri: isOptionalString,
  secret: isOptionalString,
  basicAuthUsername: isOptionalString,
  basicAuthPassword: isOptionalString,
  eventType: isEventType,
});

/** Checks one saved pending event (restore() drops what a damaged state file got wrong). */
export const isPendingDelivery = shape<PendingDelivery>({
  deliveryId: isString,
  event: isWebhookEventKind,
  target: isWebhookTarget,
  body: isString,
  attempts: isCount,
  firstAttemptAtMs: isNullableNumber,
  lastAttemptAtMs: isNullableNumber,
  nextAttemptAtMs: isFiniteNumber,
  lastStatus: isNullableNumber,
  lastError: isNullableString,
});

export const isFailedEvent = shape<FailedEvent>({
  deliveryId: isString,
  event: isWebhookEventKind,
  tenantId: isString,
  attempts: isNumber,
  firstAttemptAt: isString,
  lastAttemptAt: isString,
  lastStatus: isNullableNumber,
  lastError: isNullableString,
  payload: isPresent,
});

export const isDeliveryAttempt = shape<DeliveryAttempt>({
  deliveryId: isString,
  event: isWebhookEventKind,
  tenantId: isString,
  attempt: isNumber,
  url: isString,
  status: isNullableNumber,
  error: isNullableString,
  at: isString,
  durationMs: isNumber,
});

/** The entries of a saved list that have their shape; anything but an array is an empty list. */
export function validEntries<T>(list: unknown, check: (value: unknown) => value is T): T[] {
  return Array.isArray(list) ? list.filter(check) : [];
}
