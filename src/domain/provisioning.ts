// The wire shapes of provisioning, as the document gives them: what the CLI sends in a provision
// request and the order the service answers with. The API layer and the commands both use them.

import type { SettingsObject } from './settings-schema.js';
import type { ProvisionClass, ProvisionType } from './api/enums.js';
import type { OrderWire, Received } from './api/wire.js';

/** One number of a provision request (POST /phone-numbers/provision). */
export interface ProvisionEntry {
  number: string;
  email?: string;
  description?: string;
  domain?: string;
  platformType?: string;
  campaignId?: string;
  brandId?: string;
  loaUrl?: string;
  billingPlan?: string;
  messagingFeature: { provisionType: ProvisionType; provisionClass: ProvisionClass };
  settings?: SettingsObject;
}

/** An order as the service answers it; its fields are read leniently (commands/order/shared/order-status.ts). */
export type Order = Received<OrderWire>;

/**
 * The most numbers one order holds. The document sets no limit; the sandbox enforces this one and
 * the CLI splits larger provisioning at it. Every entry of an order also shares one
 * `messagingFeature` (the order's provision type and class).
 */
export const MAX_ORDER_ENTRIES = 100;
