// Phone numbers: provisioning orders, the active list, read and update by number.

import { BILLING_PLAN_NAMES, ORDER_ACTIONS, PLATFORM_TYPES, PROVISION_CLASSES, PROVISION_TYPES, type ProvisionClass, type ProvisionType } from '../../domain/api/enums.js';
import { isE164 } from '../../domain/api/patterns.js';
import { IMMUTABLE_NUMBER_FIELDS, NUMBER_UPDATE_KEYS, numberFieldsOf } from '../../domain/api/number-fields.js';
import type { ApiCall } from '../call.js';
import { conflict, notFound, validationError } from '../errors.js';
import {
  isObject,
  optionalBoolean,
  optionalEnum,
  optionalString,
  requiredE164,
  requiredEnum,
  requiredGuid,
  type JsonObject,
} from '../fields.js';
import { sendCachedJson, sendEmpty, sendJson } from '../http-io.js';
import { mergeNumberSettings } from '../number-settings.js';
import type { NumberRecord, OrderEntry, OrderRecord } from '../state/records.js';
import { numberView, orderView } from '../views.js';
import { API_PREFIX, endpointPath } from '../../domain/api/endpoints.js';
import { isHttpsOrLoopbackUrl } from '../../domain/urls.js';

/** Entries per order: the document sets no limit; this keeps one request's work bounded. */
export { MAX_ORDER_ENTRIES } from '../../domain/provisioning.js';
import { MAX_ORDER_ENTRIES } from '../../domain/provisioning.js';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT } from '../limits.js';

const PROVIDER = 'Sandbox';

/** NANP numbers display as (555) 010-1234; others as their E.164 form. */
export function friendlyName(e164: string): string {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(e164);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : e164;
}

interface ProvisionEntry {
  number: string;
  email: string | null;
  description: string | null;
  domain: string | null;
  platformType: NumberRecord['platformType'];
  campaignId: string | null;
  brandId: string | null;
  loaUrl: string | null;
  billingPlan: string | null;
  provisionType: ProvisionType;
  provisionClass: ProvisionClass;
  settings: Record<string, unknown>;
}

function optionalLink(body: JsonObject, field: string, label: string): string | null {
  const value = optionalString(body, field, label);
  if (value === undefined || value === '') return null;
  if (!isHttpsOrLoopbackUrl(value)) throw validationError(`${label} must be an https:// URL, got "${value}"`);
  return value;
}

function optionalEmail(body: JsonObject, field: string, label: string): string | null {
  const value = optionalString(body, field, label);
  if (value === undefined || value === '') return null;
  if (!/^[^\s@]+@[^\s@]+$/.test(value)) throw validationError(`${label} must be an email address, got "${value}"`);
  return value;
}

function parseProvisionEntry(raw: unknown, index: number): ProvisionEntry {
  const at = `phoneNumbers[${index}]`;
  if (!isObject(raw)) throw validationError(`${at} must be an object`);
  const number = requiredE164(raw, 'number', `${at}.number`);
  const feature = raw['messagingFeature'];
  if (!isObject(feature)) {
    throw validationError(`${at}.messagingFeature is required, with provisionType and provisionClass`);
  }
  const provisionType = requiredEnum(feature, 'provisionType', PROVISION_TYPES, `${at}.messagingFeature.provisionType`);
  const provisionClass = requiredEnum(feature, 'provisionClass', PROVISION_CLASSES, `${at}.messagingFeature.provisionClass`);
  const campaignId = optionalString(raw, 'campaignId', `${at}.campaignId`) || null;
  const brandId = optionalString(raw, 'brandId', `${at}.brandId`) || null;
  if (provisionClass === 'A2P' && (campaignId === null || brandId === null)) {
    throw validationError(`${at}: an A2P number needs campaignId and brandId`);
  }
  const email = optionalEmail(raw, 'email', `${at}.email`);
  const settings = raw['settings'] === undefined || raw['settings'] === null ? {} : mergeNumberSettings(raw['settings'], {});
  return {
    number,
    email,
    description: optionalString(raw, 'description', `${at}.description`) ?? null,
    domain: optionalString(raw, 'domain', `${at}.domain`) ?? (email ? (email.split('@')[1] ?? null) : null),
    platformType: optionalEnum(raw, 'platformType', PLATFORM_TYPES, `${at}.platformType`) ?? null,
    campaignId,
    brandId,
    loaUrl: optionalLink(raw, 'loaUrl', `${at}.loaUrl`),
    billingPlan: optionalString(raw, 'billingPlan', `${at}.billingPlan`) ?? null,
    provisionType,
    provisionClass,
    settings,
  };
}

function entryNumbers(body: JsonObject): unknown[] {
  const list = body['phoneNumbers'];
  if (!Array.isArray(list) || list.length === 0) throw validationError('phoneNumbers is required: a non-empty array');
  if (list.length > MAX_ORDER_ENTRIES) {
    throw validationError(`phoneNumbers holds at most ${MAX_ORDER_ENTRIES} entries per order, got ${list.length}`);
  }
  return list;
}

function refuseDuplicates(numbers: string[]): void {
  const seen = new Set<string>();
  for (const n of numbers) {
    if (seen.has(n)) throw validationError(`phoneNumbers lists ${n} twice`);
    seen.add(n);
  }
}

/** A new order, every number in it Pending; type and class are the first number's (all agree). */
function pendingOrder(
  orderId: number,
  owner: string,
  action: OrderRecord['action'],
  tenantId: string,
  first: Pick<NumberRecord, 'provisionClass' | 'provisionType'>,
  records: readonly NumberRecord[],
  now: string,
): OrderRecord {
  return {
    orderId,
    owner,
    status: 'Pending',
    action,
    tenantId,
    provisionClass: first.provisionClass,
    provisionType: first.provisionType,
    createDate: now,
    completionDate: null,
    phoneNumbers: records.map((r): OrderEntry => ({
      number: r.phoneNumber,
      phoneNumberId: r.phoneNumberId,
      status: 'Pending',
      email: r.email,
    })),
    nextStepAt: null,
  };
}

/** A number's record from its provision entry: Pending, in order `orderId`, until the order completes. */
function newNumberRecord(call: ApiCall, e: ProvisionEntry, tenantId: string, orderId: number, now: string): NumberRecord {
  return {
    phoneNumberId: call.engine.newId(),
    phoneNumber: e.number,
    owner: call.owner,
    billableOwner: call.owner,
    provider: PROVIDER,
    tenantId,
    friendlyName: friendlyName(e.number),
    email: e.email,
    description: e.description,
    domain: e.domain,
    status: 'Pending',
    provisionType: e.provisionType,
    provisionClass: e.provisionClass,
    platformType: e.platformType,
    campaignId: e.campaignId,
    brandId: e.brandId,
    loaUrl: e.loaUrl,
    billingPlan: e.billingPlan,
    billingPlanName: null,
    userId: null,
    externalId: null,
    isActivated: false,
    isMMSEnabled: e.provisionType !== 'SMS',
    settings: e.settings,
    createdAt: now,
    activatedAt: null,
    releasedAt: null,
    pendingOrderId: orderId,
  };
}

/**
 * A provision order: every entry valid, all of one messagingFeature, none already provisioned or
 * in flight; then (and only then) its numbers are stored as Pending.
 */
function provisionOrder(call: ApiCall, tenantIdGiven: string, list: readonly unknown[], orderId: number, now: string): OrderRecord {
  const store = call.engine.store;
  const entries = list.map(parseProvisionEntry);
  refuseDuplicates(entries.map((e) => e.number));
  const first = entries[0] as ProvisionEntry;
  for (const e of entries) {
    if (e.provisionClass !== first.provisionClass || e.provisionType !== first.provisionType) {
      throw validationError('Every entry of one order must have the same messagingFeature (provisionType and provisionClass)');
    }
  }
  const tenant = call.engine.ownTenant(call.owner, tenantIdGiven);
  for (const e of entries) {
    const existing = store.numbers.get(e.number);
    if (existing && (existing.status === 'Active' || existing.status === 'Pending')) {
      throw conflict(`Phone number ${e.number} is already provisioned or being provisioned`);
    }
  }
  const records = entries.map((e) => newNumberRecord(call, e, tenant.tenantId, orderId, now));
  for (const r of records) store.putNumber(r);
  return pendingOrder(orderId, call.owner, 'Provision', tenant.tenantId, first, records, now);
}

/** An unprovision order: every number the tenant's own, Active and in no other order; then each is marked as in this one. */
function unprovisionOrder(call: ApiCall, tenantIdGiven: string, list: readonly unknown[], orderId: number, now: string): OrderRecord {
  const numbers = list.map((raw, index) => {
    if (!isObject(raw)) throw validationError(`phoneNumbers[${index}] must be an object`);
    return requiredE164(raw, 'number', `phoneNumbers[${index}].number`);
  });
  refuseDuplicates(numbers);
  const tenant = call.engine.ownTenant(call.owner, tenantIdGiven);
  const records = numbers.map((n) => {
    const record = call.engine.ownNumber(call.owner, n);
    if (record.tenantId !== tenant.tenantId) throw notFound(`Phone number ${n} was not found in tenant ${tenant.tenantId}`);
    if (record.status !== 'Active' || record.pendingOrderId !== null) {
      throw conflict(`Phone number ${n} cannot be unprovisioned while it is ${record.pendingOrderId !== null ? 'in an order' : record.status}`);
    }
    return record;
  });
  for (const r of records) r.pendingOrderId = orderId;
  return pendingOrder(orderId, call.owner, 'Unprovision', tenant.tenantId, records[0] as NumberRecord, records, now);
}

export async function provisionNumbers(call: ApiCall): Promise<void> {
  const body = await call.readJson();
  const engine = call.engine;
  const action = requiredEnum(body, 'action', ORDER_ACTIONS);
  const tenantIdGiven = requiredGuid(body, 'tenantId');
  const list = entryNumbers(body);
  const now = engine.nowIso();
  const orderId = engine.store.nextOrderId;
  const order = action === 'Provision' ? provisionOrder(call, tenantIdGiven, list, orderId, now) : unprovisionOrder(call, tenantIdGiven, list, orderId, now);
  engine.store.nextOrderId = orderId + 1;
  engine.startOrder(order);
  await engine.persisted();
  sendJson(call.res, 202, orderView(order), { Location: `${API_PREFIX}${endpointPath('getOrder', { orderId: String(orderId) })}` });
}

export function getOrder(call: ApiCall<'getOrder'>): void {
  const raw = call.params.orderId;
  if (!/^\d{1,15}$/.test(raw)) throw validationError(`orderId must be an integer, got "${raw}"`);
  const order = call.engine.store.orders.get(Number(raw));
  if (!order || order.owner !== call.owner) throw notFound(`Order ${raw} was not found`);
  sendJson(call.res, 200, orderView(order));
}

function positiveIntegerQuery(call: ApiCall, name: string, fallback: number): number {
  const raw = call.query.get(name);
  if (raw === null || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw validationError(`${name} must be a positive integer, got "${raw}"`);
  }
  return Number(raw);
}


export function listActiveNumbers(call: ApiCall): void {
  const page = positiveIntegerQuery(call, 'page', 1);
  const limit = Math.min(positiveIntegerQuery(call, 'limit', DEFAULT_PAGE_LIMIT), MAX_PAGE_LIMIT);
  const active = call.engine.activeNumbers(call.owner);
  const items = active.slice((page - 1) * limit, page * limit).map(numberView);
  sendJson(call.res, 200, { items, page, limit, total: active.length });
}

function pathNumber(call: ApiCall<'getNumber' | 'updateNumber'>): string {
  const value = call.params.phoneNumber;
  if (!isE164(value)) {
    throw validationError(`The path must hold an E.164 number, URL-encoded (+ as %2B), got "${value}"`);
  }
  return value;
}

export function getNumber(call: ApiCall<'getNumber'>): void {
  const record = call.engine.ownNumber(call.owner, pathNumber(call));
  sendCachedJson(call.res, 200, call.engine.numberJson(record));
}


export async function updateNumber(call: ApiCall<'updateNumber'>): Promise<void> {
  const record = call.engine.ownNumber(call.owner, pathNumber(call));
  const body = await call.readJson();
  for (const key of Object.keys(body)) {
    if ((IMMUTABLE_NUMBER_FIELDS as readonly string[]).includes(key)) throw validationError(`${key} is immutable after provisioning`);
    if (!(NUMBER_UPDATE_KEYS as readonly string[]).includes(key)) {
      throw validationError(`${key} is not an updatable field (updatable: ${NUMBER_UPDATE_KEYS.join(', ')})`);
    }
  }
  // Everything is checked before anything is changed, so that a refused update changes nothing.
  const next: NumberRecord = { ...record };
  for (const field of numberFieldsOf('text')) {
    if (field in body) next[field] = optionalString(body, field) || null;
  }
  if ('platformType' in body) next.platformType = optionalEnum(body, 'platformType', PLATFORM_TYPES) ?? null;
  if ('loaUrl' in body) next.loaUrl = optionalLink(body, 'loaUrl', 'loaUrl');
  if ('billingPlanName' in body) next.billingPlanName = optionalEnum(body, 'billingPlanName', BILLING_PLAN_NAMES) ?? null;
  const activated = optionalBoolean(body, 'isActivated');
  if (activated !== undefined) next.isActivated = activated;
  const mms = optionalBoolean(body, 'isMMSEnabled');
  if (mms !== undefined) {
    if (mms && record.provisionType === 'SMS') {
      throw validationError('isMMSEnabled cannot be true for a number provisioned for SMS only');
    }
    next.isMMSEnabled = mms;
  }
  if (next.provisionClass === 'A2P' && (next.campaignId === null || next.brandId === null)) {
    throw validationError('An A2P number needs campaignId and brandId');
  }
  if ('settings' in body && body['settings'] !== null) next.settings = mergeNumberSettings(body['settings'], record.settings);
  Object.assign(record, next);
  call.engine.changed({ kind: 'number', value: record });
  await call.engine.persisted();
  sendEmpty(call.res, 204);
}

