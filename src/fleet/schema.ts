// The JSON Schema of a fleet file, built from the same tables the validator reads
// (definition.ts and the document's settings schema), for editors: `svc apply --schema`, and
// schema/fleet.schema.json in the package. Enumerations are listed in the document's spelling;
// svc itself also takes them in any case, as the flags do.

import type { SettingsGroup, SettingType } from '../domain/settings-schema.js';
import { SETTING_EXPECTED } from '../domain/settings-check.js';
import {
  FLEET_FILE_VERSION,
  NUMBER_KEYS,
  NUMBER_SETTINGS_SCHEMA,
  SECRET_ENV_NAME,
  TENANT_KEYS,
  TENANT_SETTING_KEYS,
  type KeyDefinition,
} from './definition.js';

type Schema = Record<string, unknown>;

const GUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const E164_PATTERN = '^\\+[1-9][0-9]{7,14}$';

function leafSchema(type: SettingType): Schema {
  const description = SETTING_EXPECTED[type];
  switch (type) {
    case 'boolean':
      return { type: 'boolean' };
    case 'integer':
      return { type: 'integer', minimum: 0 };
    case 'string':
      return { type: 'string' };
    case 'datetime':
      return { type: 'string', description };
    case 'cron':
      return { type: 'string', description };
    case 'string[]':
      return { type: 'array', items: { type: 'string' } };
    case 'email[]':
      return { type: 'array', items: { type: 'string', format: 'email' } };
  }
}

function settingsSchema(group: SettingsGroup): Schema {
  const properties: Record<string, Schema> = {};
  for (const [key, value] of Object.entries(group)) properties[key] = typeof value === 'string' ? leafSchema(value) : settingsSchema(value);
  return { type: 'object', additionalProperties: false, properties };
}

function valueSchema(definition: KeyDefinition): Schema {
  const kind = definition.value;
  const described = (schema: Schema): Schema => ({ description: definition.description, ...schema });
  switch (kind.kind) {
    case 'string':
      return described({ type: 'string' });
    case 'guid':
    case 'tenant-ref':
      return described({ type: 'string', pattern: GUID_PATTERN });
    case 'e164':
      return described({ type: 'string', pattern: E164_PATTERN });
    case 'email':
      return described({ type: 'string', format: 'email' });
    case 'link':
      return described({ type: 'string', format: 'uri', pattern: '^(https://|http://(localhost|127\\.|\\[::1\\]))' });
    case 'boolean':
      return described({ type: 'boolean' });
    case 'enum':
      return described({ enum: [...kind.values] });
    case 'secret':
      return described({ $ref: '#/$defs/secretRef' });
    case 'number-settings':
      return described({ $ref: '#/$defs/numberSettings' });
    case 'tenant-settings':
      return described({ $ref: '#/$defs/tenantSettings' });
  }
}

function objectSchema(table: Readonly<Record<string, KeyDefinition>>): Schema {
  const properties: Record<string, Schema> = {};
  for (const [key, definition] of Object.entries(table)) properties[key] = valueSchema(definition);
  const required = Object.entries(table)
    .filter(([, d]) => d.required === true)
    .map(([k]) => k);
  return { type: 'object', additionalProperties: false, ...(required.length > 0 ? { required } : {}), properties };
}

export function fleetJsonSchema(): Schema {
  const number = objectSchema(NUMBER_KEYS);
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://svc.invalid/schema/fleet.schema.json',
    title: 'svc fleet file',
    description: 'Tenants and phone numbers as they should be: `svc diff -f FILE` shows what would change, `svc apply -f FILE` makes it so.',
    type: 'object',
    additionalProperties: false,
    required: ['version'],
    properties: {
      version: { const: FLEET_FILE_VERSION, description: 'The file format version' },
      tenants: { type: 'array', items: { $ref: '#/$defs/tenant' } },
      numbers: { type: 'array', items: { $ref: '#/$defs/number' } },
    },
    $defs: {
      secretRef: {
        type: 'object',
        additionalProperties: false,
        required: ['env'],
        properties: { env: { type: 'string', pattern: SECRET_ENV_NAME.source, description: 'The environment variable that holds the secret' } },
      },
      tenantSettings: objectSchema(TENANT_SETTING_KEYS),
      tenant: objectSchema(TENANT_KEYS),
      numberSettings: settingsSchema(NUMBER_SETTINGS_SCHEMA),
      number: {
        ...number,
        // An A2P number carries its 10DLC registration.
        if: { properties: { class: { const: 'A2P' } }, required: ['class'] },
        then: { required: ['campaignId', 'brandId'] },
      },
    },
  };
}

/** The schema as the file in the package holds it (and `svc apply --schema` prints it). */
export function fleetJsonSchemaText(): string {
  return `${JSON.stringify(fleetJsonSchema(), null, 2)}\n`;
}
