// The live state as a fleet file that `apply` takes and `diff` finds in sync: tenants with their
// webhook settings (a secret the service holds becomes an {env: NAME} reference, since a read
// hides it), and every active number with the keys the file format has. A value the file format
// would refuse (a setting the schema does not know, a value of the wrong type) is left out and
// named, so that the file written is always one `apply` reads.

import { schemaChild, settingLeafProblem } from '../domain/settings-check.js';
import { NUMBER_SETTINGS_SCHEMA, type SettingsGroup } from '../domain/settings-schema.js';
import { matchEnum } from '../domain/validate.js';
import { HIDDEN_SECRET } from '../domain/webhooks.js';
import { FLEET_FILE_VERSION, NUMBER_KEYS, TENANT_SETTING_KEYS, type KeyDefinition } from './definition.js';
import type { LiveNumber, LiveTenant } from './read-live.js';

export interface ExportedSecret {
  env: string;
  tenantId: string;
  key: string;
}

export interface Export {
  document: Record<string, unknown>;
  secrets: ExportedSecret[];
  /** Values left out, one line each: `+15555550100 settings.foo: not a setting of the document`. */
  leftOut: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `SVC_3F2504E0_WEBHOOK_SECRET`: the tenant's first GUID group and the key in capitals. */
export function secretEnvName(tenantId: string, key: string): string {
  const short = tenantId.split('-')[0]!.toUpperCase();
  const words = key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();
  return `SVC_${short}_${words}`;
}

/** The value as the file takes it, or undefined when the file format would refuse it. */
function fileValue(definition: KeyDefinition, value: unknown): unknown {
  const kind = definition.value;
  switch (kind.kind) {
    case 'boolean':
      return typeof value === 'boolean' ? value : undefined;
    case 'enum':
      return typeof value === 'string' ? matchEnum(kind.values, value) : undefined;
    case 'string':
    case 'email':
    case 'link':
      return typeof value === 'string' && value !== '' ? value : undefined;
    default:
      return undefined;
  }
}

function exportSettings(value: Record<string, unknown>, group: SettingsGroup, prefix: string, leftOut: (path: string, why: string) => void): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner === null || inner === undefined) continue;
    const path = prefix === '' ? key : `${prefix}.${key}`;
    const child = schemaChild(group, key);
    if (child === undefined) leftOut(`settings.${path}`, 'not a setting of the document');
    else if (typeof child === 'string') {
      const problem = settingLeafProblem(path, child, inner);
      if (problem === undefined) out[key] = inner;
      else leftOut(`settings.${path}`, `${JSON.stringify(inner)} is not ${problem.expected}`);
    } else if (isRecord(inner)) {
      const nested = exportSettings(inner, child, path, leftOut);
      if (nested !== undefined) out[key] = nested;
    } else {
      leftOut(`settings.${path}`, 'a group holding a single value');
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function exportFleet(tenants: readonly LiveTenant[], numbers: readonly LiveNumber[]): Export {
  const secrets: ExportedSecret[] = [];
  const leftOutLines: string[] = [];
  const tenantDocs = tenants.map((tenant) => {
    const doc: Record<string, unknown> = { tenantId: tenant.tenantId };
    if (tenant.domain !== undefined) doc['domain'] = tenant.domain;
    const settings: Record<string, unknown> = {};
    for (const [key, definition] of Object.entries(TENANT_SETTING_KEYS)) {
      const value = tenant.settings[key];
      if (value === undefined || value === null || value === '') continue;
      if (definition.treatment === 'secret') {
        // The service holds a secret (a read shows it hidden): the file names where it will come from.
        if (value === HIDDEN_SECRET || typeof value === 'string') {
          const env = secretEnvName(tenant.tenantId, key);
          settings[key] = { env };
          secrets.push({ env, tenantId: tenant.tenantId, key });
        }
        continue;
      }
      const exported = fileValue(definition, value);
      if (exported !== undefined) settings[key] = exported;
      else leftOutLines.push(`tenant ${tenant.tenantId} settings.${key}: ${JSON.stringify(value)} is not what the file format takes`);
    }
    if (Object.keys(settings).length > 0) doc['settings'] = settings;
    return doc;
  });
  const numberDocs = [...numbers]
    .sort((a, b) => (a.tenantId ?? '').localeCompare(b.tenantId ?? '') || (a.number < b.number ? -1 : a.number > b.number ? 1 : 0))
    .flatMap((n) => {
      if (n.tenantId === undefined || n.type === undefined || n.class === undefined) {
        leftOutLines.push(`${n.number}: the service did not say its tenant, type or class`);
        return [];
      }
      const doc: Record<string, unknown> = { number: n.number, tenant: n.tenantId, type: n.type, class: n.class };
      for (const [key, definition] of Object.entries(NUMBER_KEYS)) {
        if (!(key in n.values) || definition.treatment === 'identity' || definition.treatment === 'immutable') continue;
        const exported = fileValue(definition, n.values[key]);
        if (exported !== undefined) doc[key] = exported;
        else leftOutLines.push(`${n.number} ${key}: ${JSON.stringify(n.values[key])} is not what the file format takes`);
      }
      // An SMS-only number cannot say isMMSEnabled: true in a file; the service would not show it so.
      if (n.type === 'SMS' && doc['isMMSEnabled'] === true) delete doc['isMMSEnabled'];
      if (n.settings !== undefined) {
        const settings = exportSettings(n.settings, NUMBER_SETTINGS_SCHEMA, '', (path, why) => leftOutLines.push(`${n.number} ${path}: ${why}`));
        if (settings !== undefined) doc['settings'] = settings;
      }
      return [doc];
    });
  return { document: { version: FLEET_FILE_VERSION, tenants: tenantDocs, numbers: numberDocs }, secrets, leftOut: leftOutLines };
}
