// The desired state a fleet file describes, once checked: plain JSON (a saved plan carries it).

import type { SettingsObject } from '../domain/settings-schema.js';
import type { ProvisionClass, ProvisionType } from '../domain/api/enums.js';

/** A secret is never in the file: only the name of the environment variable that holds it. */
export interface SecretRef {
  env: string;
}

export function isSecretRef(value: unknown): value is SecretRef {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as SecretRef).env === 'string';
}

export interface DesiredTenant {
  /** Lower case, as the service keeps it. */
  tenantId: string;
  domain?: string;
  /** Webhook settings; secrets as references. */
  settings?: Record<string, string | SecretRef>;
}

export interface DesiredNumber {
  number: string;
  /** A tenantId, lower case. */
  tenant: string;
  type: ProvisionType;
  class: ProvisionClass;
  /** The other keys the file gives (email, description, userId, isActivated ...), checked and in the document's spelling. */
  fields: Record<string, string | boolean>;
  settings?: SettingsObject;
}

export interface DesiredFleet {
  tenants: DesiredTenant[];
  numbers: DesiredNumber[];
}
