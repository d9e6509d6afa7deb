// Tenants: list, create, read, update. Webhook fields are accepted inside `settings` and at the
// top level of the body (the document shows both) and are kept in `settings`.

import { API_PREFIX, endpointPath } from '../../domain/api/endpoints.js';
import { isOneOf, TENANT_SECRET_FIELDS, TENANT_WEBHOOK_FIELDS, WEBHOOK_EVENT_TYPES, type TenantWebhookField, type WebhookEventType } from '../../domain/api/enums.js';
import { isGuid } from '../../domain/api/patterns.js';
import type { ApiCall } from '../call.js';
import { conflict, validationError } from '../errors.js';
import { HIDDEN_SECRET } from '../engine.js';
import { isObject, optionalString, type JsonObject } from '../fields.js';
import { isHttpsOrLoopbackUrl } from '../../domain/urls.js';
import { sendEmpty, sendJson } from '../http-io.js';
import type { TenantRecord, TenantSettings } from '../state/records.js';
import { tenantView } from '../views.js';

const SETTING_KEYS = TENANT_WEBHOOK_FIELDS;
type SettingKey = TenantWebhookField;

function isSettingKey(key: string): key is SettingKey {
  return (SETTING_KEYS as readonly string[]).includes(key);
}

/**
 * Applies the settings of a create or update body onto `current`, returning the new settings.
 * Webhook fields are accepted in `settings` and at the top level of the body (the document shows
 * both). Every value is checked wherever it is; a field given in both places must have the same
 * value in both, or the request is refused naming it (neither placement silently wins).
 */
export function mergeTenantSettings(body: JsonObject, current: TenantSettings): TenantSettings {
  const given = new Map<SettingKey, unknown>();
  const nested = body['settings'];
  const nestedObject = nested === undefined || nested === null ? undefined : nested;
  if (nestedObject !== undefined && !isObject(nestedObject)) throw validationError('settings must be an object');
  for (const key of SETTING_KEYS) {
    if (!(key in body)) continue;
    checkSetting(key, body[key], key);
    given.set(key, body[key]);
  }
  if (nestedObject !== undefined) {
    for (const [key, value] of Object.entries(nestedObject)) {
      if (!isSettingKey(key)) {
        throw validationError(`settings.${key} is not a tenant setting (known: ${SETTING_KEYS.join(', ')})`);
      }
      checkSetting(key, value, `settings.${key}`);
      if (given.has(key) && !sameSetting(given.get(key), value)) {
        throw validationError(`${key} is given at the top level and in settings with different values; give it once`);
      }
      given.set(key, value);
    }
  }
  const next: TenantSettings = { ...current };
  for (const [key, value] of given) {
    if (value === null || value === '') {
      delete next[key];
      continue;
    }
    const text = value as string;
    if (isOneOf(TENANT_SECRET_FIELDS, key)) {
      // The hidden marker a GET shows means "unchanged", so that a read-modify-write keeps secrets.
      if (text !== HIDDEN_SECRET) next[key] = text;
    } else if (key === 'webhookEventType') {
      next[key] = text as WebhookEventType;
    } else {
      next[key] = text;
    }
  }
  return next;
}

function sameSetting(a: unknown, b: unknown): boolean {
  const blank = (v: unknown): boolean => v === null || v === '';
  return a === b || (blank(a) && blank(b));
}

/** One webhook field's value, wherever it was given; `label` is how the body names it. */
function checkSetting(key: SettingKey, value: unknown, label: string): void {
  if (value === null || value === '') return;
  if (typeof value !== 'string') throw validationError(`${label} must be a string`);
  switch (key) {
    case 'webhookPrimaryUri':
    case 'webhookSecondaryUri':
      if (!isHttpsOrLoopbackUrl(value)) {
        throw validationError(`${label} must be an https:// URL (http:// is accepted only for a loopback host), got "${value}"`);
      }
      break;
    case 'webhookEventType':
      if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(value)) {
        throw validationError(`${label} must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}, got "${value}"`);
      }
      break;
    default:
      break;
  }
}

function refuseOwnerFields(body: JsonObject, tenant: TenantRecord | undefined): void {
  for (const field of ['owner', 'billableOwner'] as const) {
    const value = body[field];
    if (value === undefined) continue;
    // A read-modify-write may send back the unchanged value; any other value is an attempt to set it.
    if (tenant && typeof value === 'string' && value.toLowerCase() === tenant[field]) continue;
    throw validationError(`${field} is read-only: it is set from the credentials`);
  }
}

export function listTenants(call: ApiCall): void {
  const tenants = [...call.engine.store.tenants.values()].filter((t) => t.owner === call.owner);
  sendJson(call.res, 200, tenants.map(tenantView));
}

export async function createTenant(call: ApiCall): Promise<void> {
  const body = await call.readJson();
  refuseOwnerFields(body, undefined);
  const engine = call.engine;
  const givenId = optionalString(body, 'tenantId');
  if (givenId !== undefined && !isGuid(givenId)) throw validationError(`tenantId must be a GUID, got "${givenId}"`);
  const tenantId = (givenId ?? engine.newId()).toLowerCase();
  const domain = optionalString(body, 'domain') ?? null;
  const settings = mergeTenantSettings(body, {});
  if (engine.store.tenants.has(tenantId)) throw conflict(`Tenant ${tenantId} already exists`);
  const tenant: TenantRecord = {
    tenantId,
    owner: call.owner,
    billableOwner: call.owner,
    domain,
    createdDate: engine.nowIso(),
    settings,
  };
  engine.store.tenants.set(tenantId, tenant);
  engine.changed({ kind: 'tenant', value: tenant });
  await engine.persisted();
  sendJson(call.res, 201, tenantView(tenant), { Location: `${API_PREFIX}${endpointPath('getTenant', { tenantId })}` });
}

/** The tenant named in the path: a malformed id is a 400, a well-formed unknown or foreign one a 404. */
function pathTenant(call: ApiCall<'getTenant' | 'updateTenant'>): TenantRecord {
  const id = call.params.tenantId;
  if (!isGuid(id)) throw validationError(`tenantId must be a GUID, got "${id}"`);
  return call.engine.ownTenant(call.owner, id);
}

export function getTenant(call: ApiCall<'getTenant'>): void {
  const tenant = pathTenant(call);
  sendJson(call.res, 200, tenantView(tenant));
}

export async function updateTenant(call: ApiCall<'updateTenant'>): Promise<void> {
  const tenant = pathTenant(call);
  const body = await call.readJson();
  refuseOwnerFields(body, tenant);
  const bodyId = optionalString(body, 'tenantId');
  if (bodyId !== undefined && bodyId.toLowerCase() !== tenant.tenantId) {
    throw validationError('tenantId cannot be changed');
  }
  const settings = mergeTenantSettings(body, tenant.settings);
  if ('domain' in body) tenant.domain = optionalString(body, 'domain') ?? null;
  tenant.settings = settings;
  call.engine.changed({ kind: 'tenant', value: tenant });
  await call.engine.persisted();
  sendEmpty(call.res, 204);
}
