// The whole check of a fleet file, before any request: every problem at once, each at its
// FILE:LINE:COLUMN, by the rules the flags use (src/domain/: E.164, GUIDs, enumerations, the
// settings schema and its checker), so that a value refused on the command line is refused here.

import { schemaChild, settingLeafProblem } from '../domain/settings-check.js';
import { NUMBER_SETTINGS_SCHEMA, type SettingsGroup, type SettingsObject } from '../domain/settings-schema.js';
import { isEmailAddress, matchEnum } from '../domain/validate.js';
import type { ProvisionClass, ProvisionType } from '../domain/api/enums.js';
import { isE164, isGuid } from '../domain/api/patterns.js';
import { isHttpsOrLoopbackUrl } from '../domain/urls.js';
import { closestKey } from '../input/known-keys.js';
import { closeSettingPaths } from '../numbers/settings.js';
import {
  FLEET_FILE_VERSION,
  NUMBER_KEYS,
  SECRET_ENV_NAME,
  TENANT_KEYS,
  TENANT_SETTING_KEYS,
  TOP_LEVEL_KEYS,
  type KeyDefinition,
} from './definition.js';
import type { FileProblem, FleetSource, PathSegment } from './file.js';
import type { DesiredFleet, DesiredNumber, DesiredTenant, SecretRef } from './model.js';

type Mapping = Record<string, unknown>;

function isMapping(value: unknown): value is Mapping {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shown(value: unknown): string {
  return JSON.stringify(value) ?? String(value);
}

export interface ValidatedFleet {
  fleet: DesiredFleet;
  problems: FileProblem[];
}

/** Checks the parsed file; `problems` is empty when the fleet can be used. */
export function validateFleet(source: FleetSource): ValidatedFleet {
  const problems: FileProblem[] = [];
  const report = (path: readonly PathSegment[], message: string, key = false): void => {
    problems.push({ position: source.positionOf(path, { key }), message });
  };
  const fleet: DesiredFleet = { tenants: [], numbers: [] };
  const root = source.value;
  if (!isMapping(root)) {
    report([], `a fleet file is a mapping with version: ${FLEET_FILE_VERSION}, tenants and numbers, not ${root === null || root === undefined ? 'an empty document' : shown(root)}`);
    return { fleet, problems };
  }
  for (const key of Object.keys(root)) {
    if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key)) unknownKey(report, [key], key, TOP_LEVEL_KEYS);
  }
  if (!('version' in root)) report([], `no version: the first line of a fleet file is "version: ${FLEET_FILE_VERSION}"`);
  else if (root['version'] !== FLEET_FILE_VERSION) report(['version'], `version ${shown(root['version'])} is not known; this svc reads version ${FLEET_FILE_VERSION}`);

  const tenantIds = new Map<string, PathSegment[]>();
  const tenants = listAt(root, 'tenants', report);
  tenants.forEach((raw, index) => {
    const tenant = checkTenant(raw, ['tenants', index], report);
    if (tenant === undefined) return;
    const earlier = tenantIds.get(tenant.tenantId);
    if (earlier !== undefined) {
      report(['tenants', index, 'tenantId'], `tenant ${tenant.tenantId} is listed twice (also at line ${source.positionOf(earlier).line})`);
      return;
    }
    tenantIds.set(tenant.tenantId, ['tenants', index, 'tenantId']);
    fleet.tenants.push(tenant);
  });

  const numbers = new Map<string, PathSegment[]>();
  listAt(root, 'numbers', report).forEach((raw, index) => {
    const number = checkNumber(raw, ['numbers', index], report);
    if (number === undefined) return;
    const earlier = numbers.get(number.number);
    if (earlier !== undefined) {
      report(['numbers', index, 'number'], `${number.number} is listed twice (also at line ${source.positionOf(earlier).line})`);
      return;
    }
    numbers.set(number.number, ['numbers', index, 'number']);
    fleet.numbers.push(number);
  });
  return { fleet, problems };
}

type Report = (path: readonly PathSegment[], message: string, key?: boolean) => void;

function unknownKey(report: Report, path: readonly PathSegment[], key: string, known: readonly string[]): void {
  const near = closestKey(key, known);
  report(path, `unknown key "${key}"${near !== undefined ? `; did you mean "${near}"?` : ''} (known here: ${known.join(', ')})`, true);
}

function listAt(root: Mapping, key: string, report: Report): unknown[] {
  const value = root[key];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    report([key], `${key} is a list (each item starting with "- "), not ${shown(value)}`);
    return [];
  }
  return value;
}

/** A mapping's keys against a table; the known values, each checked. */
function checkKeys(raw: Mapping, path: readonly PathSegment[], table: Readonly<Record<string, KeyDefinition>>, report: Report): void {
  const known = Object.keys(table);
  for (const key of Object.keys(raw)) if (!(key in table)) unknownKey(report, [...path, key], key, known);
}

function checkTenant(raw: unknown, path: PathSegment[], report: Report): DesiredTenant | undefined {
  if (!isMapping(raw)) {
    report(path, `a tenant is a mapping with tenantId, domain and settings, not ${shown(raw)}`);
    return undefined;
  }
  checkKeys(raw, path, TENANT_KEYS, report);
  const id = raw['tenantId'];
  let tenantId: string | undefined;
  if (id === undefined || id === null) report(path, 'a tenant needs its tenantId (a GUID: the file names the tenant, so that a second apply finds it)');
  else if (typeof id !== 'string' || !isGuid(id)) report([...path, 'tenantId'], `tenantId ${shown(id)} is not a GUID (like 3f2504e0-4f89-11d3-9a0c-0305e82c3301)`);
  else tenantId = id.toLowerCase();
  const tenant: DesiredTenant = { tenantId: tenantId ?? '' };
  const domain = textValue(raw, 'domain', path, report);
  if (domain !== undefined) tenant.domain = domain;
  const settings = raw['settings'];
  if (settings !== undefined && settings !== null) {
    if (!isMapping(settings)) report([...path, 'settings'], `settings is a mapping of webhook settings, not ${shown(settings)}`);
    else {
      checkKeys(settings, [...path, 'settings'], TENANT_SETTING_KEYS, report);
      const out: Record<string, string | SecretRef> = {};
      for (const [key, definition] of Object.entries(TENANT_SETTING_KEYS)) {
        if (!(key in settings)) continue;
        const value = checkValue(settings[key], definition, [...path, 'settings', key], `settings.${key}`, report);
        if (value !== undefined) out[key] = value as string | SecretRef;
      }
      tenant.settings = out;
    }
  }
  return tenantId === undefined ? undefined : tenant;
}

function textValue(raw: Mapping, key: string, path: readonly PathSegment[], report: Report): string | undefined {
  if (!(key in raw)) return undefined;
  const value = checkValue(raw[key], { value: { kind: 'string' }, treatment: 'compared', description: '' }, [...path, key], key, report);
  return typeof value === 'string' ? value : undefined;
}

/**
 * One value by its kind; undefined (and a problem reported) when it is wrong. `label` is how the
 * message names the key.
 */
function checkValue(value: unknown, definition: KeyDefinition, path: readonly PathSegment[], label: string, report: Report): string | boolean | SecretRef | undefined {
  const kind = definition.value;
  if (value === null || value === undefined) {
    report(path, `${label} has no value; give one or leave the key out`);
    return undefined;
  }
  if (kind.kind === 'secret') return checkSecret(value, path, label, report);
  if (kind.kind === 'boolean') {
    if (typeof value !== 'boolean') {
      report(path, `${label} takes true or false, not ${shown(value)}`);
      return undefined;
    }
    return value;
  }
  if (typeof value !== 'string') {
    const quoted = typeof value === 'number' ? ` (write it in quotes: "${kind.kind === 'e164' ? '+' : ''}${String(value)}"; YAML read it as a number)` : '';
    report(path, `${label} takes text, not ${shown(value)}${quoted}`);
    return undefined;
  }
  return checkText(value, kind, path, label, report);
}

/** A secret: only ever a reference to the environment variable that holds it. */
function checkSecret(value: unknown, path: readonly PathSegment[], label: string, report: Report): SecretRef | undefined {
  if (typeof value === 'string' || typeof value === 'number') {
    // The value itself is never repeated: it is a secret that should not be in the file at all.
    report(path, `${label} is written in clear; a secret goes in an environment variable (your CI's secret store), referenced as ${label.split('.').pop()}: {env: NAME}`);
    return undefined;
  }
  const keys = isMapping(value) ? Object.keys(value) : [];
  const name = isMapping(value) ? value['env'] : undefined;
  if (!isMapping(value) || keys.length !== 1 || typeof name !== 'string') {
    report(path, `${label} takes {env: NAME}, the environment variable that holds the secret`);
    return undefined;
  }
  if (!SECRET_ENV_NAME.test(name)) {
    report([...path, 'env'], `${shown(name)} is not an environment variable name (letters, digits and _, not starting with a digit)`);
    return undefined;
  }
  return { env: name };
}

/**
 * Values that passed their kind's check, by kind: a fleet names the same tenant, type and class
 * on thousands of numbers, checked once each (the kind objects are the definition tables' own).
 */
const passed = new WeakMap<KeyDefinition['value'], Map<string, string>>();

/** A text value by the rule of its kind (the same rules the flags use); GUIDs come back lower case. */
function checkText(value: string, kind: KeyDefinition['value'], path: readonly PathSegment[], label: string, report: Report): string | undefined {
  // Text is anything; numbers are each their own (nothing to gain from keeping them).
  if (kind.kind === 'string' || kind.kind === 'e164') return checkTextOnce(value, kind, path, label, report);
  let known = passed.get(kind);
  if (known === undefined) passed.set(kind, (known = new Map()));
  const hit = known.get(value);
  if (hit !== undefined) return hit;
  const checked = checkTextOnce(value, kind, path, label, report);
  if (checked !== undefined && known.size < 10_000) known.set(value, checked);
  return checked;
}

function checkTextOnce(value: string, kind: KeyDefinition['value'], path: readonly PathSegment[], label: string, report: Report): string | undefined {
  const refuse = (message: string): undefined => {
    report(path, message);
    return undefined;
  };
  switch (kind.kind) {
    case 'guid':
      return isGuid(value) ? value.toLowerCase() : refuse(`${label} ${shown(value)} is not a GUID`);
    case 'tenant-ref':
      return isGuid(value) ? value.toLowerCase() : refuse(`tenant ${shown(value)} is neither a tenantId of this file nor a GUID (a tenant is named by its tenantId)`);
    case 'e164':
      return isE164(value) ? value : refuse(`${shown(value)} is not an E.164 number (a + then 8 to 15 digits, the first not 0, e.g. "+15555550100")`);
    case 'email':
      return isEmailAddress(value) ? value : refuse(`${label} ${shown(value)} is not an email address`);
    case 'link':
      return isHttpsOrLoopbackUrl(value) ? value : refuse(`${label} ${shown(value)} must be an https:// URL (http:// only to localhost)`);
    case 'enum':
      return matchEnum(kind.values, value) ?? refuse(`${label} ${shown(value)} is not one of ${kind.values.join(', ')}`);
    default:
      return value;
  }
}

const NUMBER_FIELD_KEYS = Object.keys(NUMBER_KEYS).filter((k) => !['number', 'tenant', 'type', 'class', 'settings'].includes(k));

function checkNumber(raw: unknown, path: PathSegment[], report: Report): DesiredNumber | undefined {
  if (!isMapping(raw)) {
    report(path, `a number is a mapping with number, tenant, type and class, not ${shown(raw)}`);
    return undefined;
  }
  checkKeys(raw, path, NUMBER_KEYS, report);
  let ok = true;
  const required = <T>(key: string, what: string): T | undefined => {
    if (!(key in raw)) {
      report(path, `${typeof raw['number'] === 'string' ? `${raw['number']}: ` : ''}no ${key} (${what})`);
      ok = false;
      return undefined;
    }
    const value = checkValue(raw[key], NUMBER_KEYS[key]!, [...path, key], key, report);
    if (value === undefined) ok = false;
    return value as T | undefined;
  };
  const number = required<string>('number', 'the E.164 number, in quotes');
  const tenant = required<string>('tenant', 'the tenantId that holds it');
  const type = required<ProvisionType>('type', 'SMS, MMS or SMSMMS');
  const provisionClass = required<ProvisionClass>('class', 'P2P or A2P');
  const fields: Record<string, string | boolean> = {};
  for (const key of NUMBER_FIELD_KEYS) {
    if (!(key in raw)) continue;
    const value = checkValue(raw[key], NUMBER_KEYS[key]!, [...path, key], key, report);
    if (value === undefined) ok = false;
    else fields[key] = value as string | boolean;
  }
  if (provisionClass === 'A2P') {
    const missing = ['campaignId', 'brandId'].filter((k) => !(k in raw));
    if (missing.length > 0) {
      report(path, `${number ?? 'this number'} is A2P and needs ${missing.join(' and ')} (its 10DLC registration)`);
      ok = false;
    }
  }
  if (type === 'SMS' && fields['isMMSEnabled'] === true) {
    report([...path, 'isMMSEnabled'], `${number ?? 'this number'} is provisioned for SMS only, so isMMSEnabled cannot be true`);
    ok = false;
  }
  let settings: SettingsObject | undefined;
  if ('settings' in raw) {
    const before = ok;
    ok = checkSettings(raw['settings'], [...path, 'settings'], NUMBER_SETTINGS_SCHEMA, '', report) && before;
    if (ok) settings = raw['settings'] as SettingsObject;
  }
  if (!ok || number === undefined || tenant === undefined || type === undefined || provisionClass === undefined) return undefined;
  return { number, tenant, type, class: provisionClass, fields, ...(settings !== undefined ? { settings } : {}) };
}

/** The settings object by the document's schema and the shared leaf check; true when valid. */
function checkSettings(value: unknown, path: readonly PathSegment[], group: SettingsGroup, prefix: string, report: Report): boolean {
  const where = prefix === '' ? 'settings' : `settings.${prefix}`;
  if (!isMapping(value)) {
    report(path, `${where} is a mapping of settings, not ${shown(value)}`);
    return false;
  }
  let ok = true;
  for (const key in value) {
    const inner = value[key];
    const dotted = prefix === '' ? key : `${prefix}.${key}`;
    const child = schemaChild(group, key);
    if (child === undefined) {
      const close = closeSettingPaths(dotted);
      const siblings = Object.keys(group);
      const sibling = closestKey(key, siblings);
      const near = close[0] ?? (sibling === undefined ? undefined : prefix === '' ? sibling : `${prefix}.${sibling}`);
      report([...path, key], `settings.${dotted} is not a phone-number setting${near !== undefined ? `; did you mean "settings.${near}"?` : ''} (known here: ${siblings.join(', ')})`, true);
      ok = false;
    } else if (typeof child === 'string') {
      const problem = settingLeafProblem(dotted, child, inner);
      if (problem !== undefined) {
        report([...path, key], `settings.${problem.path} takes ${problem.expected}, not ${shown(problem.value)}`);
        ok = false;
      }
    } else if (!checkSettings(inner, [...path, key], child, dotted, report)) {
      ok = false;
    }
  }
  return ok;
}
