import { IMMUTABLE_NUMBER_FIELDS, NUMBER_UPDATE_KEYS, numberFieldsOf } from '../../domain/api/number-fields.js';
import type { InputFor, CommandInput } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { getPhoneNumber, updatePhoneNumber, type PhoneNumberUpdate } from '../../api/numbers.js';
import { matchEnum } from '../../domain/validate.js';
import { BILLING_PLAN_NAMES, PLATFORM_TYPES } from '../../domain/api/enums.js';
import { isHttpsOrLoopbackUrl } from '../../domain/urls.js';
import { requireE164 } from '../../input/checks.js';
import { readTextFile } from '../../input/files.js';
import { parseJsonText } from '../../input/json.js';
import { jsonKeyLines, unknownKeyError } from '../../input/known-keys.js';
import { checkSettingsObject, mergeSettings, parseBooleanWord, parseSetAssignment, SettingError, settingsFromAssignments, type SettingsObject } from '../../numbers/settings.js';
import { writeNumber } from './shared/number-view.js';
import { chooseActiveNumber } from './shared/choose-number.js';

// PUT sends only the fields given: the document's PUT takes "any updatable fields", so a partial
// body is what it describes, and the sandbox merges it (settings leaf by leaf). No read before the
// write; an answer without a body is followed by a read-back.

// Fixed after provisioning, as the service says, and the two ids a number's own read carries:
// refused as immutable whatever their case.
const IMMUTABLE = [...IMMUTABLE_NUMBER_FIELDS, 'phoneNumberId', 'tenantId'].map((key) => key.toLowerCase());
const STRING_FIELDS: readonly string[] = numberFieldsOf('text', 'link');
const BOOLEAN_FIELDS: readonly string[] = numberFieldsOf('boolean');
const UPDATABLE: string[] = NUMBER_UPDATE_KEYS;

function checkLink(value: string, where: string): string {
  if (!isHttpsOrLoopbackUrl(value)) throw new UsageError(`${where} must be an https:// URL, not "${value}"`);
  return value;
}

function refuseImmutable(key: string, where: string): void {
  if (IMMUTABLE.includes(key.toLowerCase())) {
    throw new UsageError(`${where}: "${key}" cannot be changed after provisioning (owner, billableOwner, provider and the number are fixed)`);
  }
}

async function fileChanges(file: string): Promise<PhoneNumberUpdate> {
  const text = await readTextFile(file, '--file');
  const parsed = parseJsonText(text, file);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new UsageError(`${file}:1:1: expected a JSON object`);
  const data = parsed as Record<string, unknown>;
  const body: PhoneNumberUpdate = {};
  for (const [key, value] of Object.entries(data)) {
    refuseImmutable(key, file);
    if (!UPDATABLE.includes(key)) throw unknownKeyError(file, jsonKeyLines(text.replace(/^\uFEFF/, '')), key, UPDATABLE);
    if (value === null) {
      body[key] = null;
      continue;
    }
    if (STRING_FIELDS.includes(key)) {
      if (typeof value !== 'string') throw new UsageError(`${file}: "${key}" must be a string, not ${JSON.stringify(value)}`);
      body[key] = key === 'loaUrl' ? checkLink(value, `${file}: loaUrl`) : value;
    } else if (BOOLEAN_FIELDS.includes(key)) {
      if (typeof value !== 'boolean') throw new UsageError(`${file}: "${key}" must be true or false, not ${JSON.stringify(value)}`);
      body[key] = value;
    } else if (key === 'platformType') {
      const match = typeof value === 'string' ? matchEnum(PLATFORM_TYPES, value) : undefined;
      if (!match) throw new UsageError(`${file}: platformType must be one of ${PLATFORM_TYPES.join(', ')}, not ${JSON.stringify(value)}`);
      body[key] = match;
    } else if (key === 'billingPlanName') {
      const match = typeof value === 'string' ? matchEnum(BILLING_PLAN_NAMES, value) : undefined;
      if (!match) throw new UsageError(`${file}: billingPlanName must be one of ${BILLING_PLAN_NAMES.join(', ')}, not ${JSON.stringify(value)}`);
      body[key] = match;
    } else {
      const problems = checkSettingsObject(value);
      if (problems.length > 0) throw new UsageError(`${file}: ${problems.join('; ')}`);
      body[key] = value;
    }
  }
  return body;
}

function booleanFlag<N extends string>(input: CommandInput<N>, name: N, flag: string): boolean | undefined {
  const text = input.string(name);
  if (text === undefined) return undefined;
  const value = parseBooleanWord(text);
  if (value === undefined) throw new UsageError(`${flag} takes true or false, not "${text}"`);
  return value;
}

/** The PUT body: --file first, then flags and --set over it. Checked before anything is sent. */
type ChangeInput = CommandInput<
  'file' | 'description' | 'userId' | 'externalId' | 'campaignId' | 'brandId' | 'platformType' | 'billingPlan' | 'loaUrl' | 'activated' | 'mms' | 'set'
>;

export async function numberChanges(input: ChangeInput): Promise<PhoneNumberUpdate> {
  const file = input.string('file');
  const body: PhoneNumberUpdate = file === undefined ? {} : await fileChanges(file);
  const text = (name: 'description' | 'userId' | 'externalId' | 'campaignId' | 'brandId' | 'platformType' | 'billingPlan', field: string): void => {
    const value = input.string(name);
    if (value !== undefined) body[field] = value;
  };
  text('description', 'description');
  text('userId', 'userId');
  text('externalId', 'externalId');
  text('campaignId', 'campaignId');
  text('brandId', 'brandId');
  text('platformType', 'platformType');
  text('billingPlan', 'billingPlanName');
  const loaUrl = input.string('loaUrl');
  if (loaUrl !== undefined) body['loaUrl'] = checkLink(loaUrl, '--loa-url');
  const activated = booleanFlag(input, 'activated', '--activated');
  if (activated !== undefined) body['isActivated'] = activated;
  const mms = booleanFlag(input, 'mms', '--mms');
  if (mms !== undefined) body['isMMSEnabled'] = mms;

  const assignments = input.strings('set').map((text) => {
    const path = text.slice(0, Math.max(0, text.indexOf('='))).trim();
    if (path !== '' && !/^settings\./.test(path) && !path.includes('.')) refuseImmutable(path, '--set');
    try {
      return parseSetAssignment(text);
    } catch (error) {
      if (error instanceof SettingError) throw new UsageError(`--set ${text}: ${error.message}`, error.hints);
      throw error;
    }
  });
  if (assignments.length > 0) {
    const current = body['settings'];
    const base = typeof current === 'object' && current !== null ? (current as SettingsObject) : {};
    body['settings'] = mergeSettings(base, settingsFromAssignments(assignments));
  }
  return body;
}

export async function run(input: InputFor<typeof numberCommands, 'number update'>, ctx: Context): Promise<number> {
  const given = input.arg(0);
  if (given !== undefined) requireE164(given, 'NUMBER');
  const changes = await numberChanges(input);
  if (Object.keys(changes).length === 0) {
    throw new UsageError('Nothing to update: give a field flag (--description, --activated, ...), --set settings.PATH=VALUE or --file');
  }
  const number = requireE164(given ?? (await chooseActiveNumber(ctx, { what: 'NUMBER (E.164 number)', flag: 'it after `svc number update`' })), 'NUMBER');
  const api = await ctx.api();
  const answer = await updatePhoneNumber(api, number, changes);
  await writeNumber(ctx, answer ?? (await getPhoneNumber(api, number)));
  return 0;
}
