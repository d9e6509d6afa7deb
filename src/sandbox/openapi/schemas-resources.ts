// The component schemas of the accounts side of the API: errors, health, tenants, phone numbers
// and provisioning orders. Enumerations and patterns come from the contract (domain/api).

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
  WEBHOOK_EVENT_TYPES,
} from '../../domain/api/enums.js';
import { dateTime, e164, enumOf, enumOrNull, guid, ref, str, type Json } from './json-schema.js';

function settingSchema(type: SettingType): Json {
  switch (type) {
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer' };
    case 'string':
      return { type: 'string' };
    case 'datetime':
      return { type: 'string', format: 'date-time' };
    case 'cron':
      return { type: 'string', description: 'cron expression (5 fields)' };
    case 'string[]':
      return { type: 'array', items: { type: 'string' } };
    case 'email[]':
      return { type: 'array', items: { type: 'string', format: 'email' } };
  }
}

/** The phone-number settings object; `nullable` for updates, where null removes a leaf. */
function settingsSchema(group: SettingsGroup, nullable: boolean): Json {
  const properties: Json = {};
  for (const [key, value] of Object.entries(group)) {
    const schema = typeof value === 'string' ? settingSchema(value) : settingsSchema(value, nullable);
    properties[key] = nullable ? { anyOf: [schema, { type: 'null' }] } : schema;
  }
  return { type: 'object', properties, additionalProperties: false };
}

const tenantSettingsProperties = (input: boolean): Json => {
  const s = (description: string): Json => (input ? { type: ['string', 'null'], description: `${description} null or "" removes it.` } : str(description));
  return {
    webhookPrimaryUri: s('https:// URL (http:// only for a loopback host, in the sandbox).'),
    webhookSecondaryUri: s('Fallback endpoint, same rules.'),
    webhookSecret: s(input ? 'HMAC-SHA256 signing secret; "********" (what a read shows) keeps the stored one.' : 'Always "********" when set: never shown in clear.'),
    webhookBasicAuthUsername: s('Basic auth user for calls to the endpoint.'),
    webhookBasicAuthPassword: s(input ? 'Basic auth password; "********" keeps the stored one.' : 'Always "********" when set.'),
    webhookEventType: input
      ? { anyOf: [enumOf(WEBHOOK_EVENT_TYPES), { type: 'null' }, { const: '' }], description: 'Event filter.' }
      : enumOf(WEBHOOK_EVENT_TYPES, 'Event filter (All when never set).'),
  };
};

export function resourceSchemas(): Json {
  return {
    Error: {
      type: 'object',
      description: 'Every error answer (the document gives it for 401; the sandbox answers every error with it).',
      required: ['message', 'title', 'errorCode'],
      properties: {
        message: str(),
        title: str(),
        errorCode: enumOf(ERROR_CODES),
      },
      additionalProperties: false,
    },
    Health: {
      type: 'object',
      required: ['status', 'totalDuration', 'entries'],
      properties: {
        status: str('Healthy when OK.'),
        totalDuration: { type: 'string', pattern: '^\\d{2}:\\d{2}:\\d{2}\\.\\d{7}$', description: '.NET time span.' },
        entries: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name', 'status', 'duration'],
            properties: { name: str(), status: str(), duration: str(), data: { type: 'object', additionalProperties: { type: 'number' } } },
          },
        },
      },
    },
    TenantSettings: { type: 'object', properties: tenantSettingsProperties(false), additionalProperties: false, description: 'Unset fields are left out.' },
    TenantSettingsInput: { type: 'object', properties: tenantSettingsProperties(true), additionalProperties: false },
    Tenant: {
      type: 'object',
      required: ['tenantId', 'owner', 'billableOwner', 'createdDate', 'settings'],
      properties: {
        tenantId: guid(),
        owner: str('Read-only: the account that created it.'),
        billableOwner: str('Read-only.'),
        domain: str('Left out when unset.'),
        createdDate: dateTime(),
        settings: ref('TenantSettings'),
      },
      additionalProperties: false,
    },
    TenantWrite: {
      type: 'object',
      description:
        'Create (all optional) or update body. Webhook fields are accepted in settings and at the top level; each is validated wherever it is given, and a field given in both places must carry the same value (else 400). owner and billableOwner are read-only (refused unless unchanged).',
      properties: {
        tenantId: guid('Create: generated when left out. Update: must be the path id.'),
        domain: { type: ['string', 'null'] },
        settings: { anyOf: [ref('TenantSettingsInput'), { type: 'null' }] },
        ...tenantSettingsProperties(true),
      },
    },
    PhoneNumberSettings: { ...settingsSchema(NUMBER_SETTINGS_SCHEMA, false), description: 'rateLimit: sends per second, enforced by the sandbox (429 beyond).' },
    PhoneNumberSettingsInput: settingsSchema(NUMBER_SETTINGS_SCHEMA, true),
    PhoneNumber: {
      type: 'object',
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
        capabilities: { type: 'object', required: ['sms', 'mms'], properties: { sms: { type: 'boolean' }, mms: { type: 'boolean' } }, additionalProperties: false },
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
      additionalProperties: false,
    },
    PhoneNumberUpdate: {
      type: 'object',
      description: 'Any updatable fields; null clears a text field. Other fields are refused (400).',
      properties: {
        userId: { type: ['string', 'null'] },
        platformType: enumOrNull(PLATFORM_TYPES),
        description: { type: ['string', 'null'] },
        externalId: { type: ['string', 'null'] },
        campaignId: { type: ['string', 'null'] },
        brandId: { type: ['string', 'null'] },
        loaUrl: { type: ['string', 'null'] },
        isActivated: { type: ['boolean', 'null'] },
        isMMSEnabled: { type: ['boolean', 'null'] },
        billingPlanName: enumOrNull(BILLING_PLAN_NAMES),
        settings: { anyOf: [ref('PhoneNumberSettingsInput'), { type: 'null' }] },
      },
      additionalProperties: false,
    },
    ActivePhoneNumbers: {
      type: 'object',
      required: ['items', 'page', 'limit', 'total'],
      properties: {
        items: { type: 'array', items: ref('PhoneNumber') },
        page: { type: 'integer', minimum: 1 },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        total: { type: 'integer', minimum: 0 },
      },
      additionalProperties: false,
    },
    ProvisionEntry: {
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
    },
    ProvisionRequest: {
      type: 'object',
      required: ['action', 'tenantId', 'phoneNumbers'],
      properties: {
        action: enumOf(ORDER_ACTIONS),
        tenantId: guid(),
        phoneNumbers: { type: 'array', minItems: 1, maxItems: 100, items: ref('ProvisionEntry') },
      },
      if: { properties: { action: { const: 'Provision' } } },
      then: { properties: { phoneNumbers: { items: { required: ['number', 'messagingFeature'] } } } },
    },
    Order: {
      type: 'object',
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
          items: {
            type: 'object',
            required: ['number', 'phoneNumberId', 'status'],
            properties: {
              number: e164(),
              phoneNumberId: guid(),
              status: enumOf(NUMBER_STATUSES),
              email: str(),
              errorMessage: str('Why provisioning failed.'),
            },
            additionalProperties: false,
          },
        },
      },
      additionalProperties: false,
    },
  };
}
