// What a fleet file may say, as data: every key of a tenant and of a number, what value it takes
// and how `diff` treats it. The validator (validate.ts), the JSON Schema (schema.ts), the plan
// (plan.ts) and `export` all read these tables, so that a key is described once.

import { numberFieldsOf, PROVISION_ENTRY_KEYS } from '../domain/api/number-fields.js';
import { NUMBER_SETTINGS_SCHEMA } from '../domain/settings-schema.js';
import { BILLING_PLAN_NAMES, PLATFORM_TYPES, PROVISION_CLASSES, PROVISION_TYPES, WEBHOOK_EVENT_TYPES } from '../domain/api/enums.js';

export const FLEET_FILE_VERSION = 1;

export type ValueKind =
  | { kind: 'string' }
  | { kind: 'guid' }
  | { kind: 'e164' }
  | { kind: 'email' }
  /** https://, or http:// to a loopback host (the sandbox and local listeners). */
  | { kind: 'link' }
  | { kind: 'boolean' }
  /** Matched without case, as the flags are, and kept in the document's spelling. */
  | { kind: 'enum'; values: readonly string[] }
  /** `{env: NAME}`: the value is read from the environment when it is sent, never written in the file. */
  | { kind: 'secret' }
  /** The phone-number settings object of the document (settings-schema.ts). */
  | { kind: 'number-settings' }
  /** The tenant's webhook settings (TENANT_SETTING_KEYS). */
  | { kind: 'tenant-settings' }
  /** A tenantId of the file, or any tenant GUID of the account. */
  | { kind: 'tenant-ref' };

/**
 * How `diff` treats a key: `identity` names the thing; `compared` is read back and compared;
 * `provision-only` is sent when a number is provisioned and never compared (a read does not show
 * it as it was sent, or it cannot be changed afterwards); `immutable` cannot change once live
 * (a difference is `blocked`); `secret` is hidden on read, so it is never compared.
 */
export type Treatment = 'identity' | 'compared' | 'provision-only' | 'immutable' | 'secret';

export interface KeyDefinition {
  value: ValueKind;
  treatment: Treatment;
  description: string;
  required?: boolean;
}

export const TOP_LEVEL_KEYS = ['version', 'tenants', 'numbers'] as const;

export const TENANT_SETTING_KEYS: Readonly<Record<string, KeyDefinition>> = {
  webhookPrimaryUri: { value: { kind: 'link' }, treatment: 'compared', description: 'Primary webhook endpoint (https://)' },
  webhookSecondaryUri: { value: { kind: 'link' }, treatment: 'compared', description: 'Fallback webhook endpoint (https://)' },
  webhookSecret: { value: { kind: 'secret' }, treatment: 'secret', description: 'HMAC-SHA256 signing secret, as {env: NAME}' },
  webhookBasicAuthUsername: { value: { kind: 'string' }, treatment: 'compared', description: 'Basic auth user for webhook calls' },
  webhookBasicAuthPassword: { value: { kind: 'secret' }, treatment: 'secret', description: 'Basic auth password for webhook calls, as {env: NAME}' },
  webhookEventType: { value: { kind: 'enum', values: WEBHOOK_EVENT_TYPES }, treatment: 'compared', description: 'Which events are sent' },
};

export const TENANT_KEYS: Readonly<Record<string, KeyDefinition>> = {
  tenantId: { value: { kind: 'guid' }, treatment: 'identity', required: true, description: 'The tenant GUID, sent on create so that the id is the file\'s' },
  domain: { value: { kind: 'string' }, treatment: 'compared', description: 'Custom domain of the tenant' },
  settings: { value: { kind: 'tenant-settings' }, treatment: 'compared', description: 'Webhook settings' },
};

export const NUMBER_KEYS: Readonly<Record<string, KeyDefinition>> = {
  number: { value: { kind: 'e164' }, treatment: 'identity', required: true, description: 'E.164 phone number, e.g. "+15555550100"' },
  tenant: { value: { kind: 'tenant-ref' }, treatment: 'immutable', required: true, description: 'The tenantId that holds the number' },
  type: { value: { kind: 'enum', values: PROVISION_TYPES }, treatment: 'immutable', required: true, description: 'provisionType' },
  class: { value: { kind: 'enum', values: PROVISION_CLASSES }, treatment: 'immutable', required: true, description: 'provisionClass (A2P needs campaignId and brandId)' },
  email: { value: { kind: 'email' }, treatment: 'provision-only', description: 'Address for notifications (sent when provisioned)' },
  domain: { value: { kind: 'string' }, treatment: 'provision-only', description: 'Domain (sent when provisioned; defaults to the email\'s)' },
  billingPlan: { value: { kind: 'string' }, treatment: 'provision-only', description: 'Billing plan sent when provisioned, e.g. P2P500' },
  description: { value: { kind: 'string' }, treatment: 'compared', description: 'Description of the number' },
  platformType: { value: { kind: 'enum', values: PLATFORM_TYPES }, treatment: 'compared', description: 'Chat platform' },
  campaignId: { value: { kind: 'string' }, treatment: 'compared', description: '10DLC campaign (A2P)' },
  brandId: { value: { kind: 'string' }, treatment: 'compared', description: '10DLC brand (A2P)' },
  loaUrl: { value: { kind: 'link' }, treatment: 'compared', description: 'Letter of authorization link, from `svc number loa upload`' },
  userId: { value: { kind: 'string' }, treatment: 'compared', description: 'User id or email associated with the number' },
  externalId: { value: { kind: 'string' }, treatment: 'compared', description: 'Your own tracking id' },
  isActivated: { value: { kind: 'boolean' }, treatment: 'compared', description: 'Activated flag' },
  isMMSEnabled: { value: { kind: 'boolean' }, treatment: 'compared', description: 'MMS enabled flag' },
  billingPlanName: { value: { kind: 'enum', values: BILLING_PLAN_NAMES }, treatment: 'compared', description: 'Billing plan name' },
  settings: { value: { kind: 'number-settings' }, treatment: 'compared', description: 'Phone-number settings' },
};

/** Number keys a provision entry carries (the rest are set by an update once the number is live). */
export { PROVISION_ENTRY_KEYS };

/** Number keys a PUT takes, besides settings. */
export const UPDATABLE_NUMBER_KEYS = numberFieldsOf('text', 'link', 'boolean', 'platformType', 'billingPlanName');

export const SECRET_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export { NUMBER_SETTINGS_SCHEMA };
