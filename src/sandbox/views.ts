// The public shapes of the sandbox's records: how a stored tenant, number, order, message or
// delivery receipt is rendered on the wire, typed by the contract's wire shapes. Optional fields
// that are not set are left out (the null policy of the document), secrets are answered as the
// hidden mask.

import { isOneOf, TENANT_SECRET_FIELDS, TENANT_WEBHOOK_FIELDS } from '../domain/api/enums.js';
import type { DeliveryReceiptWire, MessageWire, OrderWire, PhoneNumberWire, TenantSettingsWire, TenantWire } from '../domain/api/wire.js';
import { HIDDEN_SECRET } from '../domain/webhooks.js';
import { deliveryReceiptPayload, orderPayload } from '../domain/webhook-payloads.js';
import type { MessageRecord, NumberRecord, OrderRecord, TenantRecord, TenantSettings } from './state/records.js';

/** `{key: value}` when the value is set, else nothing: answers leave unset optional fields out. */
function ifSet<K extends string, V>(key: K, value: V | null | undefined): { [P in K]?: V } {
  return (value !== null && value !== undefined ? { [key]: value } : {}) as { [P in K]?: V };
}

/** The document's delivery receipt for a message as it is now. */
export function receiptOf(message: MessageRecord): DeliveryReceiptWire {
  return deliveryReceiptPayload(message);
}

/** A tenant's settings as a read shows them: the set ones, every secret as the hidden mask, the filter always. */
function tenantSettingsView(settings: TenantSettings): TenantSettingsWire {
  const shown: Partial<TenantSettingsWire> = {};
  for (const field of TENANT_WEBHOOK_FIELDS) {
    const value = settings[field];
    if (field === 'webhookEventType' || value === undefined || value === null) continue;
    shown[field] = isOneOf(TENANT_SECRET_FIELDS, field) ? HIDDEN_SECRET : value;
  }
  return { ...shown, webhookEventType: settings.webhookEventType ?? 'All' };
}

export function tenantView(tenant: TenantRecord): TenantWire {
  return {
    tenantId: tenant.tenantId,
    owner: tenant.owner,
    billableOwner: tenant.billableOwner,
    ...ifSet('domain', tenant.domain),
    createdDate: tenant.createdDate,
    settings: tenantSettingsView(tenant.settings),
  };
}

export function numberView(n: NumberRecord): PhoneNumberWire {
  return {
    phoneNumberId: n.phoneNumberId,
    phoneNumber: n.phoneNumber,
    friendlyName: n.friendlyName,
    ...ifSet('email', n.email),
    status: n.status,
    provisionType: n.provisionType,
    provisionClass: n.provisionClass,
    capabilities: { sms: n.provisionType !== 'MMS', mms: n.provisionType !== 'SMS' },
    createdAt: n.createdAt,
    ...ifSet('activatedAt', n.activatedAt),
    tenantId: n.tenantId,
    owner: n.owner,
    billableOwner: n.billableOwner,
    provider: n.provider,
    ...ifSet('description', n.description),
    ...ifSet('domain', n.domain),
    ...ifSet('platformType', n.platformType),
    ...ifSet('campaignId', n.campaignId),
    ...ifSet('brandId', n.brandId),
    ...ifSet('loaUrl', n.loaUrl),
    ...ifSet('billingPlan', n.billingPlan),
    ...ifSet('billingPlanName', n.billingPlanName),
    ...ifSet('userId', n.userId),
    ...ifSet('externalId', n.externalId),
    isActivated: n.isActivated,
    isMMSEnabled: n.isMMSEnabled,
    settings: n.settings,
  };
}

export function orderView(o: OrderRecord): OrderWire {
  return orderPayload(o);
}

export function messageView(m: MessageRecord): MessageWire {
  return {
    messageId: m.messageId,
    from: m.from,
    to: m.to,
    body: m.body,
    mediaUrls: m.mediaUrls,
    status: m.status,
    segmentCount: m.segmentCount,
    encoding: m.encoding,
    queuedAt: m.queuedAt,
    ...ifSet('sentAt', m.sentAt),
    ...ifSet('deliveredAt', m.deliveredAt),
    errorCode: m.errorCode,
    errorMessage: m.errorMessage,
  };
}
