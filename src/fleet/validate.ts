// The whole check of a fleet file, before any request: every problem at once, each at its
// FILE:LINE:COLUMN, by the rules the flags use (src/domain/: E.164, GUIDs, enumerations, the
// settings schema and its checker), so that a value refused on the command line is refused here.
// A file of ten thousand numbers is checked in one walk that builds nothing for a good value:
// where a value stands is a path kept on one stack, copied only when a problem must be placed.

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

/** A key of the table itself (not one every object inherits, such as `constructor`). */
function isKnown(table: Readonly<Record<string, unknown>>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(table, key);
}

export interface ValidatedFleet {
  fleet: DesiredFleet;
  problems: FileProblem[];
}

/** Checks the parsed file; `problems` is empty when the fleet can be used. */
export function validateFleet(source: FleetSource): ValidatedFleet {
  const checker = new FleetChecker(source);
  return { fleet: checker.fleet(), problems: checker.problems };
}

const TENANT_KEY_NAMES = Object.keys(TENANT_KEYS);
const TENANT_SETTING_NAMES = Object.keys(TENANT_SETTING_KEYS);
const NUMBER_KEY_NAMES = Object.keys(NUMBER_KEYS);
/** The other keys of a number, by their place in the definition table (the order of a number's fields). */
const NUMBER_FIELD_ORDER = new Map(NUMBER_KEY_NAMES.filter((k) => !['number', 'tenant', 'type', 'class', 'settings'].includes(k)).map((k, i) => [k, i]));

/** The field keys a number gives, in the table's order: found among its few keys, not by asking for each of the table's. */
function fieldKeysOf(raw: Mapping): string[] {
  const keys: string[] = [];
  for (const key in raw) if (NUMBER_FIELD_ORDER.has(key)) keys.push(key);
  if (keys.length > 1) keys.sort((a, b) => NUMBER_FIELD_ORDER.get(a)! - NUMBER_FIELD_ORDER.get(b)!);
  return keys;
}
const TEXT_KEY: KeyDefinition = { value: { kind: 'string' }, treatment: 'compared', description: '' };

/**
 * Values that passed their kind's check, by kind: a fleet names the same tenant, type and class
 * on thousands of numbers, checked once each (the kind objects are the definition tables' own).
 */
const passed = new Map<KeyDefinition['value'], Map<string, string>>();

class FleetChecker {
  readonly problems: FileProblem[] = [];
  /** Where the walk is: the path of the value being checked (a key is pushed while it is checked). */
  private readonly path: PathSegment[] = [];

  constructor(private readonly source: FleetSource) {}

  /** A problem at the current path, with `more` below it; at the key itself when `key`. */
  private report(message: string, more?: PathSegment, key = false): void {
    const path = more === undefined ? [...this.path] : [...this.path, more];
    this.problems.push({ position: this.source.positionOf(path, { key }), message });
  }

  private unknownKey(key: string, known: readonly string[]): void {
    const near = closestKey(key, known);
    this.report(`unknown key "${key}"${near !== undefined ? `; did you mean "${near}"?` : ''} (known here: ${known.join(', ')})`, key, true);
  }

  /** Every key of `raw` that the table does not have, named. */
  private unknownKeys(raw: Mapping, table: Readonly<Record<string, KeyDefinition>>, known: readonly string[]): void {
    for (const key in raw) if (!isKnown(table, key)) this.unknownKey(key, known);
  }

  fleet(): DesiredFleet {
    const fleet: DesiredFleet = { tenants: [], numbers: [] };
    const root = this.source.value;
    if (!isMapping(root)) {
      this.report(`a fleet file is a mapping with version: ${FLEET_FILE_VERSION}, tenants and numbers, not ${root === null || root === undefined ? 'an empty document' : shown(root)}`);
      return fleet;
    }
    for (const key of Object.keys(root)) {
      if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key)) this.unknownKey(key, TOP_LEVEL_KEYS);
    }
    if (!('version' in root)) this.report(`no version: the first line of a fleet file is "version: ${FLEET_FILE_VERSION}"`);
    else if (root['version'] !== FLEET_FILE_VERSION) this.report(`version ${shown(root['version'])} is not known; this svc reads version ${FLEET_FILE_VERSION}`, 'version');
    this.tenants(this.listAt(root, 'tenants'), fleet.tenants);
    this.numbers(this.listAt(root, 'numbers'), fleet.numbers);
    return fleet;
  }

  private listAt(root: Mapping, key: string): unknown[] {
    const value = root[key];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) {
      this.report(`${key} is a list (each item starting with "- "), not ${shown(value)}`, key);
      return [];
    }
    return value;
  }

  private tenants(list: unknown[], out: DesiredTenant[]): void {
    /** Where each tenantId was first given: its index in the list. */
    const seen = new Map<string, number>();
    this.path.push('tenants', 0);
    for (let index = 0; index < list.length; index++) {
      this.path[1] = index;
      const tenant = this.tenant(list[index]);
      if (tenant === undefined) continue;
      const earlier = seen.get(tenant.tenantId);
      if (earlier !== undefined) {
        this.report(`tenant ${tenant.tenantId} is listed twice (also at line ${this.source.positionOf(['tenants', earlier, 'tenantId']).line})`, 'tenantId');
        continue;
      }
      seen.set(tenant.tenantId, index);
      out.push(tenant);
    }
    this.path.length = 0;
  }

  private numbers(list: unknown[], out: DesiredNumber[]): void {
    const seen = new Map<string, number>();
    this.path.push('numbers', 0);
    for (let index = 0; index < list.length; index++) {
      this.path[1] = index;
      const number = this.number(list[index]);
      if (number === undefined) continue;
      const earlier = seen.get(number.number);
      if (earlier !== undefined) {
        this.report(`${number.number} is listed twice (also at line ${this.source.positionOf(['numbers', earlier, 'number']).line})`, 'number');
        continue;
      }
      seen.set(number.number, index);
      out.push(number);
    }
    this.path.length = 0;
  }

  private tenant(raw: unknown): DesiredTenant | undefined {
    if (!isMapping(raw)) {
      this.report(`a tenant is a mapping with tenantId, domain and settings, not ${shown(raw)}`);
      return undefined;
    }
    this.unknownKeys(raw, TENANT_KEYS, TENANT_KEY_NAMES);
    const id = raw['tenantId'];
    let tenantId: string | undefined;
    if (id === undefined || id === null) this.report('a tenant needs its tenantId (a GUID: the file names the tenant, so that a second apply finds it)');
    else if (typeof id !== 'string' || !isGuid(id)) this.report(`tenantId ${shown(id)} is not a GUID (like 3f2504e0-4f89-11d3-9a0c-0305e82c3301)`, 'tenantId');
    else tenantId = id.toLowerCase();
    const tenant: DesiredTenant = { tenantId: tenantId ?? '' };
    if ('domain' in raw) {
      const domain = this.value(raw['domain'], TEXT_KEY, 'domain', 'domain');
      if (typeof domain === 'string') tenant.domain = domain;
    }
    const settings = raw['settings'];
    if (settings !== undefined && settings !== null) {
      if (!isMapping(settings)) this.report(`settings is a mapping of webhook settings, not ${shown(settings)}`, 'settings');
      else tenant.settings = this.tenantSettings(settings);
    }
    return tenantId === undefined ? undefined : tenant;
  }

  private tenantSettings(settings: Mapping): Record<string, string | SecretRef> {
    this.path.push('settings');
    this.unknownKeys(settings, TENANT_SETTING_KEYS, TENANT_SETTING_NAMES);
    const out: Record<string, string | SecretRef> = {};
    for (const key of TENANT_SETTING_NAMES) {
      if (!(key in settings)) continue;
      const value = this.value(settings[key], TENANT_SETTING_KEYS[key]!, key, `settings.${key}`);
      if (value !== undefined) out[key] = value as string | SecretRef;
    }
    this.path.pop();
    return out;
  }

  private number(raw: unknown): DesiredNumber | undefined {
    if (!isMapping(raw)) {
      this.report(`a number is a mapping with number, tenant, type and class, not ${shown(raw)}`);
      return undefined;
    }
    this.unknownKeys(raw, NUMBER_KEYS, NUMBER_KEY_NAMES);
    const number = this.required(raw, 'number', 'the E.164 number, in quotes');
    const tenant = this.required(raw, 'tenant', 'the tenantId that holds it');
    const type = this.required(raw, 'type', 'SMS, MMS or SMSMMS') as ProvisionType | undefined;
    const provisionClass = this.required(raw, 'class', 'P2P or A2P') as ProvisionClass | undefined;
    let ok = true;
    const fields: Record<string, string | boolean> = {};
    const given = fieldKeysOf(raw);
    for (let i = 0; i < given.length; i++) {
      const key = given[i]!;
      const value = this.value(raw[key], NUMBER_KEYS[key]!, key, key);
      if (value === undefined) ok = false;
      else fields[key] = value as string | boolean;
    }
    if (provisionClass === 'A2P' && !('campaignId' in raw && 'brandId' in raw)) {
      const missing = ['campaignId', 'brandId'].filter((k) => !(k in raw));
      this.report(`${number ?? 'this number'} is A2P and needs ${missing.join(' and ')} (its 10DLC registration)`);
      ok = false;
    }
    if (type === 'SMS' && fields['isMMSEnabled'] === true) {
      this.report(`${number ?? 'this number'} is provisioned for SMS only, so isMMSEnabled cannot be true`, 'isMMSEnabled');
      ok = false;
    }
    let settings: SettingsObject | undefined;
    if ('settings' in raw) {
      this.path.push('settings');
      const valid = this.settings(raw['settings'], NUMBER_SETTINGS_SCHEMA, '');
      this.path.pop();
      ok = valid && ok;
      if (ok) settings = raw['settings'] as SettingsObject;
    }
    if (!ok || number === undefined || tenant === undefined || type === undefined || provisionClass === undefined) return undefined;
    const desired: DesiredNumber = { number, tenant, type, class: provisionClass, fields };
    if (settings !== undefined) desired.settings = settings;
    return desired;
  }

  /** A key every number has (`what` says what it is); undefined when it is missing or wrong. */
  private required(raw: Mapping, key: string, what: string): string | undefined {
    if (key in raw) return this.value(raw[key], NUMBER_KEYS[key]!, key, key) as string | undefined;
    this.report(`${typeof raw['number'] === 'string' ? `${raw['number']}: ` : ''}no ${key} (${what})`);
    return undefined;
  }

  /**
   * One value (at `key` of the current path) by its kind; undefined (and a problem reported)
   * when it is wrong. `label` is how the message names the key.
   */
  private value(value: unknown, definition: KeyDefinition, key: string, label: string): string | boolean | SecretRef | undefined {
    const kind = definition.value;
    if (value === null || value === undefined) {
      this.report(`${label} has no value; give one or leave the key out`, key);
      return undefined;
    }
    if (kind.kind === 'secret') return this.secret(value, key, label);
    if (kind.kind === 'boolean') {
      if (typeof value !== 'boolean') {
        this.report(`${label} takes true or false, not ${shown(value)}`, key);
        return undefined;
      }
      return value;
    }
    if (typeof value !== 'string') {
      const quoted = typeof value === 'number' ? ` (write it in quotes: "${kind.kind === 'e164' ? '+' : ''}${String(value)}"; YAML read it as a number)` : '';
      this.report(`${label} takes text, not ${shown(value)}${quoted}`, key);
      return undefined;
    }
    // Text is anything; numbers are each their own (nothing to gain from keeping them).
    if (kind.kind === 'string') return value;
    if (kind.kind === 'e164') return this.text(value, kind, key, label);
    let known = passed.get(kind);
    if (known === undefined) passed.set(kind, (known = new Map()));
    const hit = known.get(value);
    if (hit !== undefined) return hit;
    const checked = this.text(value, kind, key, label);
    if (checked !== undefined && known.size < 10_000) known.set(value, checked);
    return checked;
  }

  /** A secret: only ever a reference to the environment variable that holds it. */
  private secret(value: unknown, key: string, label: string): SecretRef | undefined {
    if (typeof value === 'string' || typeof value === 'number') {
      // The value itself is never repeated: it is a secret that should not be in the file at all.
      this.report(`${label} is written in clear; a secret goes in an environment variable (your CI's secret store), referenced as ${label.split('.').pop()}: {env: NAME}`, key);
      return undefined;
    }
    const keys = isMapping(value) ? Object.keys(value) : [];
    const name = isMapping(value) ? value['env'] : undefined;
    if (!isMapping(value) || keys.length !== 1 || typeof name !== 'string') {
      this.report(`${label} takes {env: NAME}, the environment variable that holds the secret`, key);
      return undefined;
    }
    if (!SECRET_ENV_NAME.test(name)) {
      this.path.push(key);
      this.report(`${shown(name)} is not an environment variable name (letters, digits and _, not starting with a digit)`, 'env');
      this.path.pop();
      return undefined;
    }
    return { env: name };
  }

  /** A text value by the rule of its kind (the same rules the flags use); GUIDs come back lower case. */
  private text(value: string, kind: KeyDefinition['value'], key: string, label: string): string | undefined {
    const refuse = (message: string): undefined => {
      this.report(message, key);
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

  /** The settings object at the current path by the document's schema and the shared leaf check; true when valid. */
  private settings(value: unknown, group: SettingsGroup, prefix: string): boolean {
    if (!isMapping(value)) {
      this.report(`${prefix === '' ? 'settings' : `settings.${prefix}`} is a mapping of settings, not ${shown(value)}`);
      return false;
    }
    let ok = true;
    for (const key in value) {
      const inner = value[key];
      const dotted = prefix === '' ? key : `${prefix}.${key}`;
      const child = schemaChild(group, key);
      if (child === undefined) {
        this.unknownSetting(key, dotted, group, prefix);
        ok = false;
      } else if (typeof child === 'string') {
        const problem = settingLeafProblem(dotted, child, inner);
        if (problem !== undefined) {
          this.report(`settings.${problem.path} takes ${problem.expected}, not ${shown(problem.value)}`, key);
          ok = false;
        }
      } else {
        this.path.push(key);
        if (!this.settings(inner, child, dotted)) ok = false;
        this.path.pop();
      }
    }
    return ok;
  }

  private unknownSetting(key: string, dotted: string, group: SettingsGroup, prefix: string): void {
    const close = closeSettingPaths(dotted);
    const siblings = Object.keys(group);
    const sibling = closestKey(key, siblings);
    const near = close[0] ?? (sibling === undefined ? undefined : prefix === '' ? sibling : `${prefix}.${sibling}`);
    this.report(`settings.${dotted} is not a phone-number setting${near !== undefined ? `; did you mean "settings.${near}"?` : ''} (known here: ${siblings.join(', ')})`, key, true);
  }
}
