// The public shapes of the sandbox's records: how a stored tenant, number, order, message or
// delivery receipt is rendered on the wire. Optional fields that are not set are left out (the
// null policy of the document), secrets are answered as the hidden mask.

import { HIDDEN_SECRET } from '../domain/webhooks.js';
import type { MessageRecord, NumberRecord, OrderRecord, TenantRecord } from './state.js';

/** A set-valued field or nothing: answers leave unset optional fields out (the null policy). */
function put(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== null && value !== undefined) target[key] = value;
}

/** The document's delivery receipt for a message as it is now. */
export function receiptOf(message: MessageRecord): Record<string, unknown> {
  const receipt: Record<string, unknown> = {
    messageId: message.messageId,
    status: message.status,
    statusReason: message.status === 'failed' ? 'Unreachable destination' : null,
  };
  put(receipt, 'deliveredAt', message.deliveredAt);
  receipt['errorCode'] = message.errorCode;
  receipt['errorMessage'] = message.errorMessage;
  return receipt;
}

export function tenantView(tenant: TenantRecord): Record<string, unknown> {
  const s = tenant.settings;
  const settings: Record<string, unknown> = {};
  put(settings, 'webhookPrimaryUri', s.webhookPrimaryUri);
  put(settings, 'webhookSecondaryUri', s.webhookSecondaryUri);
  if (s.webhookSecret !== undefined) settings['webhookSecret'] = HIDDEN_SECRET;
  put(settings, 'webhookBasicAuthUsername', s.webhookBasicAuthUsername);
  if (s.webhookBasicAuthPassword !== undefined) settings['webhookBasicAuthPassword'] = HIDDEN_SECRET;
  settings['webhookEventType'] = s.webhookEventType ?? 'All';
  const view: Record<string, unknown> = { tenantId: tenant.tenantId, owner: tenant.owner, billableOwner: tenant.billableOwner };
  put(view, 'domain', tenant.domain);
  view['createdDate'] = tenant.createdDate;
  view['settings'] = settings;
  return view;
}

export function numberView(n: NumberRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    phoneNumberId: n.phoneNumberId,
    phoneNumber: n.phoneNumber,
    friendlyName: n.friendlyName,
  };
  put(view, 'email', n.email);
  view['status'] = n.status;
  view['provisionType'] = n.provisionType;
  view['provisionClass'] = n.provisionClass;
  view['capabilities'] = { sms: n.provisionType !== 'MMS', mms: n.provisionType !== 'SMS' };
  view['createdAt'] = n.createdAt;
  put(view, 'activatedAt', n.activatedAt);
  view['tenantId'] = n.tenantId;
  view['owner'] = n.owner;
  view['billableOwner'] = n.billableOwner;
  view['provider'] = n.provider;
  put(view, 'description', n.description);
  put(view, 'domain', n.domain);
  put(view, 'platformType', n.platformType);
  put(view, 'campaignId', n.campaignId);
  put(view, 'brandId', n.brandId);
  put(view, 'loaUrl', n.loaUrl);
  put(view, 'billingPlan', n.billingPlan);
  put(view, 'billingPlanName', n.billingPlanName);
  put(view, 'userId', n.userId);
  put(view, 'externalId', n.externalId);
  view['isActivated'] = n.isActivated;
  view['isMMSEnabled'] = n.isMMSEnabled;
  view['settings'] = n.settings;
  return view;
}

export function orderView(o: OrderRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    orderId: o.orderId,
    status: o.status,
    action: o.action,
    tenantId: o.tenantId,
    provisionClass: o.provisionClass,
    provisionType: o.provisionType,
    createDate: o.createDate,
  };
  put(view, 'completionDate', o.completionDate);
  view['phoneNumbers'] = o.phoneNumbers.map((e) => {
    const entry: Record<string, unknown> = { number: e.number, phoneNumberId: e.phoneNumberId, status: e.status };
    put(entry, 'email', e.email);
    put(entry, 'errorMessage', e.errorMessage);
    return entry;
  });
  return view;
}

export function messageView(m: MessageRecord): Record<string, unknown> {
  const view: Record<string, unknown> = {
    messageId: m.messageId,
    from: m.from,
    to: m.to,
    body: m.body,
    mediaUrls: m.mediaUrls,
    status: m.status,
    segmentCount: m.segmentCount,
    encoding: m.encoding,
    queuedAt: m.queuedAt,
  };
  put(view, 'sentAt', m.sentAt);
  put(view, 'deliveredAt', m.deliveredAt);
  view['errorCode'] = m.errorCode;
  view['errorMessage'] = m.errorMessage;
  return view;
}
