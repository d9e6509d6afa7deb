import type { CommandInput } from '../spec.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { readTextFile, requireGuid, requireTenant } from '../shared/input.js';
import {
  buildProvisionEntries,
  draftsFromArguments,
  draftsFromFileText,
  entriesError,
  ENTRY_TEXT_FIELDS,
  type EntryDefaults,
  type EntryDraft,
  type EntryTextField,
} from '../../numbers/provision-entries.js';
import { submitAndReport, waitSettings } from '../order/submit.js';

export async function run(input: CommandInput, ctx: Context): Promise<number> {
  const numbers = input.argList(0);
  const file = input.string('file');
  if (numbers.length === 0 && file === undefined) {
    throw new UsageError('Give the numbers to provision: NUMBER... or --file entries.json|entries.csv');
  }
  const wait = waitSettings(input);
  const drafts: EntryDraft[] = draftsFromArguments(numbers);
  let fileTenant: string | undefined;
  if (file !== undefined) {
    const parsed = draftsFromFileText(await readTextFile(file, 'provision file'), file);
    if (parsed.action !== undefined && parsed.action.toLowerCase() !== 'provision') {
      throw new UsageError(`${file}: the request's action is "${parsed.action}"; this command provisions (use \`svc number unprovision\` to release)`);
    }
    fileTenant = parsed.tenantId;
    drafts.push(...parsed.drafts);
  }
  const defaults: EntryDefaults = { fields: {}, provisionType: input.string('type'), provisionClass: input.string('class') };
  for (const field of Object.keys(ENTRY_TEXT_FIELDS) as EntryTextField[]) {
    const value = input.string(field);
    if (value !== undefined && value.trim() !== '') defaults.fields[field] = value.trim();
  }
  const { entries, problems } = buildProvisionEntries(drafts, defaults);
  if (problems.length > 0) throw entriesError(problems);
  if (entries.length === 0) throw new UsageError(`${file ?? 'The file'}: no entries to provision`);

  const flagTenant = input.string('tenant');
  const tenantId =
    flagTenant === undefined && fileTenant !== undefined ? requireGuid(fileTenant, `${file}: tenantId`) : requireTenant(ctx, flagTenant);
  if (flagTenant !== undefined && fileTenant !== undefined && fileTenant.toLowerCase() !== tenantId.toLowerCase()) {
    throw new UsageError(`${file} is for tenant ${fileTenant} but --tenant says ${tenantId}; give one or the other`);
  }
  return submitAndReport(ctx, { action: 'Provision', tenantId, phoneNumbers: entries }, wait);
}
