import type { CommandInput } from '../../spec.js';
import type { Context } from '../../../context.js';
import { UsageError } from '../../../errors.js';
import { HIDDEN_SECRET } from '../../../domain/webhooks.js';
import { matchEnum } from '../../../domain/validate.js';
import { TENANT_SECRET_FIELDS, TENANT_WEBHOOK_FIELDS, WEBHOOK_EVENT_TYPES } from '../../../domain/api/enums.js';
import { isHttpsOrLoopbackUrl } from '../../../domain/urls.js';
import { requireGuid } from '../../../input/checks.js';
import { readTextFile } from '../../../input/files.js';
import { parseJsonText } from '../../../input/json.js';
import { readSecretFromStdin, secretFromEnv } from '../../secret-input.js';
import { jsonKeyLines, unknownKeyError } from '../../../input/known-keys.js';
import type { Tenant, TenantWrite } from '../../../api/tenants.js';
import { statusTone, writeObject, type Column } from '../../../output/render.js';

const WEBHOOK_FIELDS = TENANT_WEBHOOK_FIELDS;
const READ_ONLY_FIELDS = ['owner', 'billableOwner', 'createdDate'];
/** What a tenant file may hold at its top level: the webhook fields too, as the document shows once. */
const TOP_LEVEL_KEYS = ['tenantId', 'domain', 'settings', ...WEBHOOK_FIELDS];

/** A secret as a read shows it: a run of mask characters, never the value itself. */
function isHiddenValue(value: string): boolean {
  return /^[*•x]+$/i.test(value);
}

export interface TenantChanges {
  body: TenantWrite;
  /** Secrets given on this run, to scrub from any trace. */
  secrets: string[];
}

function checkWebhookUri(value: string, where: string): void {
  if (!isHttpsOrLoopbackUrl(value)) {
    throw new UsageError(`${where} must be an https:// URL (http:// only for a loopback listener), not "${value}"`);
  }
}

/** The options of a tenant's body (`--file` and the webhook flags), as create and update declare them. */
export type TenantInput = CommandInput<
  'file' | 'domain' | 'webhookPrimaryUri' | 'webhookSecondaryUri' | 'webhookEventType' | 'webhookBasicAuthUsername' | 'webhookSecretEnv',
  'webhookSecretStdin' | 'webhookBasicAuthPasswordStdin'
>;

/** What --file gives: top-level fields, settings (webhook fields wherever the file put them) and the secrets in them. */
interface TenantFileFields {
  body: TenantWrite;
  settings: Record<string, unknown>;
  secrets: string[];
}

/** The file's keys sorted into the body and its settings; a read-only or unknown key is refused, naming its line. */
function sortTenantFileKeys(data: Record<string, unknown>, file: string, lines: ReturnType<typeof jsonKeyLines>): TenantFileFields {
  const fields: TenantFileFields = { body: {}, settings: {}, secrets: [] };
  for (const field of READ_ONLY_FIELDS) {
    if (field in data) throw new UsageError(`${file}: "${field}" is read-only (the service sets it from your credentials)`);
  }
  for (const key of Object.keys(data)) {
    if (!TOP_LEVEL_KEYS.includes(key)) throw unknownKeyError(file, lines, key, TOP_LEVEL_KEYS);
  }
  for (const [key, value] of Object.entries(data)) {
    if (key === 'settings') {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError(`${file}: "settings" must be an object`);
      for (const inner of Object.keys(value)) {
        if (!(WEBHOOK_FIELDS as readonly string[]).includes(inner)) throw unknownKeyError(file, lines, `settings.${inner}`, WEBHOOK_FIELDS);
      }
      Object.assign(fields.settings, value);
    } else if ((WEBHOOK_FIELDS as readonly string[]).includes(key)) {
      // The document shows webhook fields at the top level once; the contract puts them in settings.
      fields.settings[key] = value;
    } else {
      fields.body[key] = value;
    }
  }
  return fields;
}

/** The file's values checked as the flags are: strings, an event type, https URIs, a GUID; hidden secret markers dropped. */
function checkTenantFileValues(fields: TenantFileFields, file: string, ctx: Context): void {
  const { body, settings, secrets } = fields;
  for (const [key, value] of Object.entries(settings)) {
    if (value !== null && value !== undefined && (WEBHOOK_FIELDS as readonly string[]).includes(key) && typeof value !== 'string') {
      throw new UsageError(`${file}: settings.${key} must be a string`);
    }
  }
  if (typeof settings['webhookEventType'] === 'string') {
    const match = matchEnum(WEBHOOK_EVENT_TYPES, settings['webhookEventType']);
    if (!match) throw new UsageError(`${file}: settings.webhookEventType must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}, not "${settings['webhookEventType']}"`);
    settings['webhookEventType'] = match;
  }
  for (const key of ['webhookPrimaryUri', 'webhookSecondaryUri'] as const) {
    if (typeof settings[key] === 'string') checkWebhookUri(settings[key], `${file}: settings.${key}`);
  }
  if (typeof body.tenantId === 'string') requireGuid(body.tenantId, `${file}: tenantId`);
  for (const key of TENANT_SECRET_FIELDS) {
    const value = settings[key];
    if (typeof value !== 'string') continue;
    // A file saved from `tenant get --json` holds the hidden marker, not the secret: sending it
    // would make the marker the new secret.
    if (isHiddenValue(value)) {
      delete settings[key];
      ctx.warn(`${file}: settings.${key} is the hidden marker "${value}", so it is not sent (the stored value stays as it is)`);
    } else {
      secrets.push(value);
    }
  }
}

/** A tenant file (--file): a JSON object, its keys known and its values checked. */
async function readTenantFile(file: string, ctx: Context): Promise<TenantFileFields> {
  const text = await readTextFile(file, '--file');
  const parsed = parseJsonText(text, file);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`${file}:1:1: expected a JSON object`);
  const lines = jsonKeyLines(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  const fields = sortTenantFileKeys(parsed as Record<string, unknown>, file, lines);
  checkTenantFileValues(fields, file, ctx);
  return fields;
}

/** The domain and webhook flags, checked, over what the file gave. */
async function applyTenantFlags(input: TenantInput, ctx: Context, body: TenantWrite, settings: Record<string, unknown>): Promise<void> {
  const domain = input.string('domain');
  if (domain !== undefined) body.domain = domain;
  const primary = input.string('webhookPrimaryUri');
  if (primary !== undefined) {
    checkWebhookUri(primary, '--webhook-primary-uri');
    settings['webhookPrimaryUri'] = primary;
  }
  const secondary = input.string('webhookSecondaryUri');
  if (secondary !== undefined) {
    checkWebhookUri(secondary, '--webhook-secondary-uri');
    settings['webhookSecondaryUri'] = secondary;
  }
  const eventType = input.string('webhookEventType');
  if (eventType !== undefined) settings['webhookEventType'] = eventType;
  const basicUser = input.string('webhookBasicAuthUsername');
  if (basicUser !== undefined) settings['webhookBasicAuthUsername'] = basicUser;
  if (input.flag('webhookSecretStdin') && input.string('webhookSecretEnv') !== undefined) {
    throw new UsageError('Give the webhook secret once: --webhook-secret-stdin or --webhook-secret-env, not both');
  }
  const secretEnv = input.string('webhookSecretEnv');
  if (secretEnv !== undefined) settings['webhookSecret'] = secretFromEnv(ctx, secretEnv, '--webhook-secret-env');
  if (input.flag('webhookSecretStdin')) settings['webhookSecret'] = await readSecretFromStdin(ctx, '--webhook-secret-stdin');
  if (input.flag('webhookBasicAuthPasswordStdin')) {
    settings['webhookBasicAuthPassword'] = await readSecretFromStdin(ctx, '--webhook-basic-auth-password-stdin');
  }
}

/**
 * The body a create or update sends: --file first, then the flags over it. Checked before
 * sending. `tenantId` is create's --tenant-id (update has none).
 */
export async function tenantChanges(input: TenantInput, ctx: Context, tenantId?: string): Promise<TenantChanges> {
  const file = input.string('file');
  const fields: TenantFileFields = file !== undefined ? await readTenantFile(file, ctx) : { body: {}, settings: {}, secrets: [] };
  const { body, settings, secrets } = fields;
  if (tenantId !== undefined) body.tenantId = requireGuid(tenantId, '--tenant-id');
  await applyTenantFlags(input, ctx, body, settings);
  for (const key of TENANT_SECRET_FIELDS) if (typeof settings[key] === 'string' && !secrets.includes(settings[key])) secrets.push(settings[key]);
  if (Object.keys(settings).length > 0) body.settings = settings;
  return { body, secrets };
}

/**
 * A tenant as shown: secret fields are never printed in clear, whatever the server sent back.
 * A value the server already hid is kept as it is.
 */
export function maskTenant(tenant: Tenant, secrets: readonly string[] = []): Tenant {
  const copy: Tenant = { ...tenant };
  const mask = (holder: Record<string, unknown>): void => {
    for (const key of TENANT_SECRET_FIELDS) {
      const value = holder[key];
      if (typeof value === 'string' && value !== '' && (secrets.includes(value) || !isHiddenValue(value))) holder[key] = HIDDEN_SECRET;
    }
  };
  mask(copy);
  if (typeof copy.settings === 'object' && copy.settings !== null) {
    copy.settings = { ...copy.settings };
    mask(copy.settings);
  }
  return copy;
}

export const tenantColumns: Column<Tenant>[] = [
  { header: 'TENANT ID', value: (t) => t.tenantId, kind: 'id', importance: 5 },
  { header: 'DOMAIN', value: (t) => t.domain, kind: 'text', importance: 4 },
  { header: 'WEBHOOK', value: (t) => t.settings?.['webhookPrimaryUri'] ?? t['webhookPrimaryUri'], kind: 'text', importance: 2 },
  { header: 'EVENTS', value: (t) => t.settings?.['webhookEventType'] ?? t['webhookEventType'], tone: statusTone, kind: 'status', importance: 3 },
  { header: 'CREATED', value: (t) => t['createdDate'], kind: 'time', importance: 1 },
];

export async function writeTenant(ctx: Context, tenant: Tenant, secrets: readonly string[] = []): Promise<void> {
  await writeObject(ctx, maskTenant(tenant, secrets), { title: typeof tenant.tenantId === 'string' ? `Tenant ${tenant.tenantId}` : 'Tenant' });
}
