// The component schemas of the accounts side of the API: errors, health, tenants, phone numbers
// and provisioning orders, as data. Enumerations, patterns, the tenant webhook fields and the
// hidden mask come from the contract (domain/); every answer's schema is tied to its wire type,
// so that a field added to one and not the other does not compile.

import { NUMBER_UPDATE_FIELDS, NUMBER_UPDATE_KEYS, type NumberFieldKind } from '../../domain/api/number-fields.js';
import type { ActiveNumbersPageWire, ErrorWire, HealthWire, OrderNumberWire, OrderWire, PhoneNumberWire, TenantWire } from '../../domain/api/wire.js';
import { NUMBER_SETTINGS_SCHEMA, type SettingsGroup, type SettingType } from '../../domain/settings-schema.js';
import {
  BILLING_PLAN_NAMES,
  ERROR_CODES,
  NUMBER_STATUSES,
  ORDER_ACTIONS,
  ORDER_STATUSES,
  PLATFORM_TYPES,
  PROVISION_CLASSES,
  PROVISION_TYPES,
  TENANT_WEBHOOK_FIELDS,
  WEBHOOK_EVENT_TYPES,
  type TenantWebhookField,
} from '../../domain/api/enums.js';
import { MAX_ORDER_ENTRIES } from '../../domain/provisioning.js';
import { HIDDEN_SECRET } from '../../domain/webhooks.js';
import { MAX_PAGE_LIMIT } from '../limits.js';
import { dateTime, e164, enumOf, enumOrNull, guid, ref, str, wireObject, type Json } from './json-schema.js';

const SETTING_SCHEMAS: Readonly<Record<SettingType, Json>> = {
  boolean: { type: 'boolean' },
  integer: { type: 'integer' },
  string: { type: 'string' },
  datetime: { type: 'string', format: 'date-time' },
  cron: { type: 'string', description: 'cron expression (5 fields)' },
  'string[]': { type: 'array', items: { type: 'string' } },
  'email[]': { type: 'array', items: { type: 'string', format: 'email' } },
};

/** The phone-number settings object; `nullable` for updates, where null removes a leaf. */
function settingsSchema(group: SettingsGroup, nullable: boolean): Json {
  const properties: Json = {};
  for (const [key, value] of Object.entries(group)) {
    const schema = typeof value === 'string' ? structuredClone(SETTING_SCHEMAS[value]) : settingsSchema(value, nullable);
    properties[key] = nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  }
  return { type: 'object', properties, additionalProperties: false };
}

/** What each tenant webhook text field is, as a read shows it and as a write takes it. */
const TENANT_TEXT_FIELDS: Readonly<Record<Exclude<TenantWebhookField, 'webhookEventType'>, { read: string; write: string }>> = {
  webhookPrimaryUri: { read: 'https:// URL (http:// only for a loopback host, in the sandbox).', write: 'https:// URL (http:// only for a loopback host, in the sandbox).' },
  webhookSecondaryUri: { read: 'Fallback endpoint, same rules.', write: 'Fallback endpoint, same rules.' },
  webhookSecret: {
    read: `Always "${HIDDEN_SECRET}" when set: never shown in clear.`,
    write: `HMAC-SHA256 signing secret; "${HIDDEN_SECRET}" (what a read shows) keeps the stored one.`,
  },
  webhookBasicAuthUsername: { read: 'Basic auth user for calls to the endpoint.', write: 'Basic auth user for calls to the endpoint.' },
  webhookBasicAuthPassword: { read: `Always "${HIDDEN_SECRET}" when set.`, write: `Basic auth password; "${HIDDEN_SECRET}" keeps the stored one.` },
};

/** A tenant's webhook settings: as a read shows them, or as a write takes them (null or "" removes one). */
function tenantSettingsProperties(input: boolean): Json {
  const schemaOf = (field: TenantWebhookField): Json => {
    if (field === 'webhookEventType') {
      return input
        ? { anyOf: [enumOf(WEBHOOK_EVENT_TYPES), { type: 'null' }, { const: '' }], description: 'Event filter.' }
        : enumOf(WEBHOOK_EVENT_TYPES, 'Event filter (All when never set).');
    }
    const { read, write } = TENANT_TEXT_FIELDS[field];
    return input ? { type: ['string', 'null'], description: `${write} null or "" removes it.` } : str(read);
  };
  return Object.fromEntries(TENANT_WEBHOOK_FIELDS.map((field) => [field, schemaOf(field)]));
}

const ERROR: Json = wireObject<ErrorWire>()({
  description: 'Every error answer (the document gives it for 401; the sandbox answers every error with it).',
  required: ['message', 'title', 'errorCode'],
  properties: { message: str(), title: str(), errorCode: enumOf(ERROR_CODES) },
});

const HEALTH: Json = wireObject<HealthWire>()({
  required: ['status', 'totalDuration', 'entries'],
  properties: {
    status: str('Healthy when OK.'),
    totalDuration: { type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}\\.\\d{7}$', description: '.NET time span.' },
    entries: {
      type: 'array',
      items: wireObject<HealthWire['entries'][number]>()({
        required: ['name', 'status', 'duration'],
        properties: { name: str(), status: str(), duration: str(), data: { type: 'object', additionalProperties: { type: 'number' } } },
        open: true,
      }),
    },
  },
  open: true,
});

const TENANT: Json = wireObject<TenantWire>()({
  required: ['tenantId', 'owner', 'billableOwner', 'createdDate', 'settings'],
  properties: {
    tenantId: guid(),
    owner: str('Read-only: the account that created it.'),
    billableOwner: str('Read-only.'),
    domain: str('Left out when unset.'),
    createdDate: dateTime(),
    settings: ref('TenantSettings'),
  },
});

const TENANT_WRITE: Json = {
  type: 'object',
  description:
    'Create (all optional) or update body. Webhook fields are accepted in settings and at the top level; each is validated wherever it is given, and a field given in both places must carry the same value (else 400). owner and billableOwner are read-only (refused unless unchanged).',
  properties: {
    tenantId: guid('Create: generated when left out. Update: must be the path id.'),
    domain: { type: ['string', 'null'] },
    settings: { anyOf: [ref('TenantSettingsInput'), { type: 'null' }] },
    ...tenantSettingsProperties(true),
  },
};

const PHONE_NUMBER: Json = wireObject<PhoneNumberWire>()({
  description: 'The read shape; unset optional fields are left out.',
  required: [
    'phoneNumberId',
    'phoneNumber',
    'friendlyName',
    'status',
    'provisionType',
    'provisionClass',
    'capabilities',
    'createdAt',
    'tenantId',
    'owner',
    'billableOwner',
    'provider',
    'isActivated',
    'isMMSEnabled',
    'settings',
  ],
  properties: {
    phoneNumberId: guid(),
    phoneNumber: e164(),
    friendlyName: str(),
    email: str(),
    status: enumOf(NUMBER_STATUSES),
    provisionType: enumOf(PROVISION_TYPES),
    provisionClass: enumOf(PROVISION_CLASSES),
    capabilities: wireObject<PhoneNumberWire['capabilities']>()({ required: ['sms', 'mms'], properties: { sms: { type: 'boolean' }, mms: { type: 'boolean' } } }),
    createdAt: dateTime(),
    activatedAt: dateTime(),
    tenantId: guid(),
    owner: str(),
    billableOwner: str(),
    provider: str(),
    description: str(),
    domain: str(),
    platformType: enumOf(PLATFORM_TYPES),
    campaignId: str(),
    brandId: str(),
    loaUrl: str(),
    billingPlan: str(),
    billingPlanName: enumOf(BILLING_PLAN_NAMES),
    userId: str(),
    externalId: str(),
    isActivated: { type: 'boolean' },
    isMMSEnabled: { type: 'boolean' },
    settings: ref('PhoneNumberSettings'),
  },
});

/** Each kind of updatable field as the PUT takes it; null clears. */
const UPDATE_FIELD_SCHEMA: Record<NumberFieldKind, () => Json> = {
  text: () => ({ type: ['string', 'null'] }),
  link: () => ({ type: ['string', 'null'] }),
  boolean: () => ({ type: ['boolean', 'null'] }),
  platformType: () => enumOrNull(PLATFORM_TYPES),
  billingPlanName: () => enumOrNull(BILLING_PLAN_NAMES),
  settings: () => ({ anyOf: [ref('PhoneNumberSettingsInput'), { type: 'null' }] }),
};

const PHONE_NUMBER_UPDATE: Json = {
  type: 'object',
  description: 'Any updatable fields; null clears a text field. Other fields are refused (400).',
  properties: Object.fromEntries(NUMBER_UPDATE_KEYS.map((key) => [key, UPDATE_FIELD_SCHEMA[NUMBER_UPDATE_FIELDS[key]]()])),
  additionalProperties: false,
};

const ACTIVE_PHONE_NUMBERS: Json = wireObject<ActiveNumbersPageWire>()({
  required: ['items', 'page', 'limit', 'total'],
  properties: {
    items: { type: 'array', items: ref('PhoneNumber') },
    page: { type: 'integer', minimum: 1 },
    limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_LIMIT },
    total: { type: 'integer', minimum: 0 },
  },
});

const PROVISION_ENTRY: Json = {
  type: 'object',
  required: ['number'],
  properties: {
    number: e164(),
    email: str(),
    description: str(),
    domain: str('Defaults to the domain of the email.'),
    platformType: enumOf(PLATFORM_TYPES),
    campaignId: str('A2P only (required there).'),
    brandId: str('A2P only (required there).'),
    loaUrl: str(),
    messagingFeature: {
      type: 'object',
      required: ['provisionType', 'provisionClass'],
      properties: { provisionType: enumOf(PROVISION_TYPES), provisionClass: enumOf(PROVISION_CLASSES) },
    },
    billingPlan: str('Open-ended list, e.g. P2P250, A2P250.'),
    settings: ref('PhoneNumberSettingsInput'),
  },
};

const PROVISION_REQUEST: Json = {
  type: 'object',
  required: ['action', 'tenantId', 'phoneNumbers'],
  properties: {
    action: enumOf(ORDER_ACTIONS),
    tenantId: guid(),
    phoneNumbers: { type: 'array', minItems: 1, maxItems: MAX_ORDER_ENTRIES, items: ref('ProvisionEntry') },
  },
  if: { properties: { action: { const: 'Provision' } } },
  then: { properties: { phoneNumbers: { items: { required: ['number', 'messagingFeature'] } } } },
};

const ORDER: Json = wireObject<OrderWire>()({
  description: 'Pending -> Processing -> Completed or Failed. Also the OrderStatus webhook payload.',
  required: ['orderId', 'status', 'action', 'tenantId', 'provisionClass', 'provisionType', 'createDate', 'phoneNumbers'],
  properties: {
    orderId: { type: 'integer' },
    status: enumOf(ORDER_STATUSES),
    action: enumOf(ORDER_ACTIONS),
    tenantId: guid(),
    provisionClass: enumOf(PROVISION_CLASSES),
    provisionType: enumOf(PROVISION_TYPES),
    createDate: dateTime(),
    completionDate: dateTime('Left out until the order is final.'),
    phoneNumbers: {
      type: 'array',
      items: wireObject<OrderNumberWire>()({
        required: ['number', 'phoneNumberId', 'status'],
        properties: {
          number: e164(),
          phoneNumberId: guid(),
          status: enumOf(NUMBER_STATUSES),
          email: str(),
          errorMessage: str('Why provisioning failed.'),
        },
      }),
    },
  },
});

/** The accounts side's component schemas, by name, in the document's order. */
export const RESOURCE_SCHEMAS: Readonly<Record<string, Json>> = {
  Error: ERROR,
  Health: HEALTH,
  TenantSettings: { type: 'object', properties: tenantSettingsProperties(false), additionalProperties: false, description: 'Unset fields are left out.' },
  TenantSettingsInput: { type: 'object', properties: tenantSettingsProperties(true), additionalProperties: false },
  Tenant: TENANT,
  TenantWrite: TENANT_WRITE,
  PhoneNumberSettings: { ...settingsSchema(NUMBER_SETTINGS_SCHEMA, false), description: 'rateLimit: sends per second, enforced by the sandbox (429 beyond).' },
  PhoneNumberSettingsInput: settingsSchema(NUMBER_SETTINGS_SCHEMA, true),
  PhoneNumber: PHONE_NUMBER,
  PhoneNumberUpdate: PHONE_NUMBER_UPDATE,
  ActivePhoneNumbers: ACTIVE_PHONE_NUMBERS,
  ProvisionEntry: PROVISION_ENTRY,
  ProvisionRequest: PROVISION_REQUEST,
  Order: ORDER,
};
