// Provision entries (the document's "provision entry") built from the drafts read from every place
// a user can give them (provision-drafts.ts: NUMBER arguments, a JSON or a CSV file) plus the
// flags. Everything is checked here, before any request, and each problem names the bad value and,
// for files, file:line.

import { UsageError } from '../errors.js';
import type { ProvisionEntry } from '../domain/provisioning.js';
import { isEmailAddress, matchEnum } from '../domain/validate.js';
import { PLATFORM_TYPES, PROVISION_CLASSES, PROVISION_TYPES, type ProvisionClass, type ProvisionType } from '../domain/api/enums.js';
import { isE164 } from '../domain/api/patterns.js';
import { isHttpsOrLoopbackUrl } from '../domain/urls.js';
import type { SettingsObject } from './settings.js';

/** Text fields of an entry, with the flag that sets each for every entry. */
export const ENTRY_TEXT_FIELDS = {
  email: '--email',
  description: '--description',
  domain: '--domain',
  platformType: '--platform-type',
  campaignId: '--campaign-id',
  brandId: '--brand-id',
  loaUrl: '--loa-url',
  billingPlan: '--billing-plan',
} as const;
export type EntryTextField = keyof typeof ENTRY_TEXT_FIELDS;
export const TEXT_FIELD_NAMES = Object.keys(ENTRY_TEXT_FIELDS) as EntryTextField[];

export type { ProvisionEntry } from '../domain/provisioning.js';

/** One entry as read, before it is checked. */
export interface EntryDraft {
  /** `entries.csv:3`, or undefined for a NUMBER argument. */
  where: string | undefined;
  number: string | undefined;
  fields: Partial<Record<EntryTextField, string>>;
  provisionType?: string | undefined;
  provisionClass?: string | undefined;
  settings?: SettingsObject | undefined;
  /** Problems found while reading it (wrong JSON types, unknown fields). */
  problems: string[];
}

/** What the flags say for every entry. */
export interface EntryDefaults {
  fields: Partial<Record<EntryTextField, string>>;
  provisionType?: string | undefined;
  provisionClass?: string | undefined;
}

export interface ProvisionFile {
  drafts: EntryDraft[];
  /** From a whole request in a JSON file. */
  tenantId?: string | undefined;
  action?: string | undefined;
}

export interface BuiltEntries {
  entries: ProvisionEntry[];
  /** Ready to print: `entries.csv:3: ...`. Empty when every entry is valid. */
  problems: string[];
}

/**
 * Checks every draft with the flags' values filling what an entry leaves empty. A flag and a
 * file that disagree on a field is a problem (neither silently wins).
 */
export function buildProvisionEntries(drafts: readonly EntryDraft[], defaults: EntryDefaults): BuiltEntries {
  const problems: string[] = [];
  const entries: ProvisionEntry[] = [];
  const firstSeen = new Map<string, string>();
  for (const draft of drafts) {
    const label = draft.where === undefined ? '' : `${draft.where}: `;
    const report = (message: string): void => {
      problems.push(`${label}${message}`);
    };
    for (const problem of draft.problems) report(problem);
    if (draft.problems.length > 0) continue;

    const number = draft.number?.trim();
    if (number === undefined || number === '') {
      report('no number');
      continue;
    }
    if (!isE164(number)) {
      report(`"${draft.number}" is not an E.164 number (a + then 8 to 15 digits, the first not 0, e.g. +15551234567)`);
      continue;
    }
    const earlier = firstSeen.get(number);
    if (earlier !== undefined) {
      report(`${number} is listed twice (also ${earlier})`);
      continue;
    }
    firstSeen.set(number, draft.where ?? 'on the command line');

    const entry = entryFromDraft(draft, defaults, number, report);
    if (entry !== undefined) entries.push(entry);
  }
  if (problems.length === 0) {
    const mixed = mixedFeatureProblem(drafts, entries);
    if (mixed !== undefined) problems.push(mixed);
  }
  return { entries, problems };
}

/**
 * The entry of one draft whose number is checked: the flags' values fill what it leaves empty,
 * each field is checked; undefined when anything was reported.
 */
function entryFromDraft(draft: EntryDraft, defaults: EntryDefaults, number: string, report: (message: string) => void): ProvisionEntry | undefined {
  let reported = false;
  const problem = (message: string): void => {
    reported = true;
    report(message);
  };
  // Enumerations are matched without case, so "sms" in a file and --type SMS agree.
  const pick = (own: string | undefined, fromFlag: string | undefined, flag: string, name: string, anyCase = false): string | undefined => {
    const differ = own !== undefined && fromFlag !== undefined && (anyCase ? own.trim().toLowerCase() !== fromFlag.trim().toLowerCase() : own !== fromFlag);
    if (differ) {
      problem(`${name} is ${JSON.stringify(own)} for ${number} but ${flag} says ${JSON.stringify(fromFlag)}; give one or the other`);
    }
    return own ?? fromFlag;
  };
  const fields: Partial<Record<EntryTextField, string>> = {};
  for (const field of TEXT_FIELD_NAMES) {
    const value = pick(draft.fields[field], defaults.fields[field], ENTRY_TEXT_FIELDS[field], field, field === 'platformType');
    if (value !== undefined) fields[field] = value;
  }
  const typeText = pick(draft.provisionType, defaults.provisionType, '--type', 'the provision type', true);
  const classText = pick(draft.provisionClass, defaults.provisionClass, '--class', 'the provision class', true);
  let provisionType: ProvisionType | undefined;
  let provisionClass: ProvisionClass | undefined;
  if (typeText === undefined) problem(`no provision type for ${number}: give --type ${PROVISION_TYPES.join('|')}${draft.where ? ' or a type in the file' : ''}`);
  else if (!(provisionType = matchEnum(PROVISION_TYPES, typeText))) problem(`provision type "${typeText}" is not one of ${PROVISION_TYPES.join(', ')}`);
  if (classText === undefined) problem(`no provision class for ${number}: give --class ${PROVISION_CLASSES.join('|')}${draft.where ? ' or a class in the file' : ''}`);
  else if (!(provisionClass = matchEnum(PROVISION_CLASSES, classText))) problem(`provision class "${classText}" is not one of ${PROVISION_CLASSES.join(', ')}`);

  if (fields.platformType !== undefined) {
    const platform = matchEnum(PLATFORM_TYPES, fields.platformType);
    if (platform === undefined) problem(`platform type "${fields.platformType}" is not one of ${PLATFORM_TYPES.join(', ')}`);
    else fields.platformType = platform;
  }
  if (provisionClass === 'A2P') {
    const missing = [
      fields.campaignId === undefined ? `a campaign (${draft.where ? 'campaignId or ' : ''}--campaign-id)` : undefined,
      fields.brandId === undefined ? `a brand (${draft.where ? 'brandId or ' : ''}--brand-id)` : undefined,
    ].filter((m): m is string => m !== undefined);
    if (missing.length > 0) problem(`${number} is A2P and needs ${missing.join(' and ')}`);
  }
  if (fields.email !== undefined && !isEmailAddress(fields.email)) problem(`"${fields.email}" is not an email address`);
  if (fields.loaUrl !== undefined && !isHttpsOrLoopbackUrl(fields.loaUrl)) {
    problem(`the LOA link "${fields.loaUrl}" must be an https:// URL (the one \`svc number loa upload\` prints)`);
  }
  if (reported || provisionType === undefined || provisionClass === undefined) return undefined;
  return {
    number,
    ...fields,
    messagingFeature: { provisionType, provisionClass },
    ...(draft.settings !== undefined ? { settings: draft.settings } : {}),
  };
}

/** An order has one provision type and class: the first entry that differs from the first, in words. */
function mixedFeatureProblem(drafts: readonly EntryDraft[], entries: readonly ProvisionEntry[]): string | undefined {
  if (entries.length <= 1) return undefined;
  const first = entries[0]!.messagingFeature;
  const other = entries.find((e) => e.messagingFeature.provisionType !== first.provisionType || e.messagingFeature.provisionClass !== first.provisionClass);
  if (other !== undefined) {
    const where = drafts.find((d) => d.number?.trim() === other.number)?.where;
    return (
      `${where ? `${where}: ` : ''}${other.number} is ${other.messagingFeature.provisionType}/${other.messagingFeature.provisionClass} but ${entries[0]!.number} is ${first.provisionType}/${first.provisionClass}; ` +
        'an order has one provision type and class, so provision them in separate orders'
    );
  }
  return undefined;
}

/** The problems as one usage error: the first few in the message, so that --json shows them too. */
export function entriesError(problems: readonly string[], shown = 20): UsageError {
  if (problems.length === 1) return new UsageError(problems[0]!);
  const listed = problems.slice(0, shown).map((p) => `  ${p}`);
  if (problems.length > shown) listed.push(`  ... and ${problems.length - shown} more`);
  return new UsageError(`${problems.length} problems with the numbers to provision (nothing was sent):\n${listed.join('\n')}`);
}
