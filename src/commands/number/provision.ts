import type { InputFor } from '../spec.js';
import type { numberCommands } from './index.js';
import type { Context } from '../../context.js';
import { UsageError } from '../../errors.js';
import { requireGuid } from '../../input/checks.js';
import { readTextFile } from '../../input/files.js';
import { PROVISION_CLASSES, PROVISION_TYPES } from '../../domain/api/enums.js';
import { askChoice, canAsk, type MissingValue } from '../../output/ask.js';
import { askNumbers } from './shared/ask-numbers.js';
import { explainTenantNotFound, tenantOrAsk } from '../tenant/shared/choose-tenant.js';
import { buildProvisionEntries, entriesError, ENTRY_TEXT_FIELDS, type EntryDefaults, type EntryDraft, type EntryTextField } from '../../numbers/provision-entries.js';
import { draftsFromArguments, draftsFromFileText } from '../../numbers/provision-drafts.js';
import { submitAndReport, waitSettings } from '../order/shared/order-submit.js';

const NUMBERS_MISSING: MissingValue = { what: 'the list of numbers to provision', flag: 'NUMBER... or --file entries.json|entries.csv', hint: 'For example: svc number provision +15551234567 --type SMS --class P2P' };

export async function run(input: InputFor<typeof numberCommands, 'number provision'>, ctx: Context): Promise<number> {
  const file = input.string('file');
  const wait = waitSettings(input);
  // On a terminal, numbers that neither the arguments nor a file give are typed in.
  const numbers = input.argList(0).length > 0 || file !== undefined ? input.argList(0) : await askNumbers(ctx, NUMBERS_MISSING, 'Numbers to provision (E.164, separated by spaces or commas)');
  const drafts: EntryDraft[] = draftsFromArguments(numbers);
  let fileTenant: string | undefined;
  if (file !== undefined) {
    const parsed = draftsFromFileText(await readTextFile(file, '--file'), file);
    if (parsed.action !== undefined && parsed.action.toLowerCase() !== 'provision') {
      throw new UsageError(`${file}: the request's action is "${parsed.action}"; this command provisions (use \`svc number unprovision\` to release)`);
    }
    fileTenant = parsed.tenantId;
    drafts.push(...parsed.drafts);
  }
  const defaults: EntryDefaults = { fields: {}, provisionType: input.string('type'), provisionClass: input.string('class') };
  // On a terminal, what no entry and no flag says is chosen; elsewhere the entries' check names the flag.
  if (canAsk(ctx)) {
    if (defaults.provisionType === undefined && drafts.some((d) => d.provisionType === undefined)) {
      defaults.provisionType = await askChoice(ctx, { what: 'the provision type', flag: '--type' }, 'Provision type', async () =>
        PROVISION_TYPES.map((t) => ({ name: t, value: t })),
      );
    }
    if (defaults.provisionClass === undefined && drafts.some((d) => d.provisionClass === undefined)) {
      defaults.provisionClass = await askChoice(ctx, { what: 'the provision class', flag: '--class' }, 'Provision class', async () =>
        PROVISION_CLASSES.map((c) => ({ name: c, value: c, description: c === 'A2P' ? 'application to person: needs --campaign-id and --brand-id' : 'person to person' })),
      );
    }
  }
  for (const field of Object.keys(ENTRY_TEXT_FIELDS) as EntryTextField[]) {
    const value = input.string(field);
    if (value !== undefined && value.trim() !== '') defaults.fields[field] = value.trim();
  }
  const { entries, problems } = buildProvisionEntries(drafts, defaults);
  if (problems.length > 0) throw entriesError(problems);
  if (entries.length === 0) throw new UsageError(`${file ?? 'The file'}: no entries to provision`);

  const flagTenant = input.string('tenant');
  const tenantId =
    flagTenant === undefined && fileTenant !== undefined ? requireGuid(fileTenant, `${file}: tenantId`) : await tenantOrAsk(ctx, flagTenant);
  if (flagTenant !== undefined && fileTenant !== undefined && fileTenant.toLowerCase() !== tenantId.toLowerCase()) {
    throw new UsageError(`${file} is for tenant ${fileTenant} but --tenant says ${tenantId}; give one or the other`);
  }
  return explainTenantNotFound(ctx, flagTenant, () => submitAndReport(ctx, { action: 'Provision', tenantId, phoneNumbers: entries }, wait));
}
