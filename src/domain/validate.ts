// Field rules shared by the CLI (checked before a request) and the sandbox (checked on receipt),
// so that both sides agree on what a valid value is.

/** E.164: a plus sign, then 8 to 15 digits, the first not 0 (the contract's rule). */
export const E164_PATTERN = /^\+[1-9]\d{7,14}$/;

export function isE164(value: string): boolean {
  return E164_PATTERN.test(value);
}

const GUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isGuid(value: string): boolean {
  return GUID_PATTERN.test(value);
}

export const PROVISION_TYPES = ['SMS', 'MMS', 'SMSMMS'] as const;
export type ProvisionType = (typeof PROVISION_TYPES)[number];

export const PROVISION_CLASSES = ['P2P', 'A2P'] as const;
export type ProvisionClass = (typeof PROVISION_CLASSES)[number];

export const PLATFORM_TYPES = [
  'PlatformAIndividual',
  'PlatformAChannel',
  'PlatformBSpace',
  'PlatformC',
  'PlatformD',
] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

export const WEBHOOK_EVENT_TYPES = ['All', 'MessageReceived', 'OrderStatus'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** The tenant settings of the document: the webhook endpoint, its secret, Basic auth and filter. */
export const TENANT_WEBHOOK_FIELDS = [
  'webhookPrimaryUri',
  'webhookSecondaryUri',
  'webhookSecret',
  'webhookBasicAuthUsername',
  'webhookBasicAuthPassword',
  'webhookEventType',
] as const;
export type TenantWebhookField = (typeof TENANT_WEBHOOK_FIELDS)[number];

export const ORDER_ACTIONS = ['Provision', 'Unprovision'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

export const BILLING_PLAN_NAMES = ['250', '500', '1000', '2000', 'Pooled', 'Volume Pricing'] as const;

/**
 * Matches an input case-insensitively against an enumeration and returns the document's
 * spelling, or undefined when it is not one of the values.
 */
export function matchEnum<T extends string>(values: readonly T[], input: string): T | undefined {
  const lowered = input.trim().toLowerCase();
  return values.find((v) => v.toLowerCase() === lowered);
}

/** True for an absolute https:// URL with a host. */
export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Hosts that may be reached over plain http: localhost, 127.0.0.0/8 and [::1]. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '::1' || host === '0:0:0:0:0:0:0:1') return true;
  const octets = host.split('.');
  if (octets.length === 4 && octets[0] === '127') {
    return octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
  }
  return false;
}

/** ISO 8601 date-time (date alone accepted too), parseable by Date. */
export function isIsoDateTime(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    return false;
  }
  if (Number.isNaN(Date.parse(value))) return false;
  // Date.parse rolls a day past the month's end over (2026-02-30 is March 2), so check the day.
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An e-mail address: one @ with text before it and a dotted domain after it, no spaces or commas. */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(value);
}
