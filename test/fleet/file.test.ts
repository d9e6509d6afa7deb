import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { fleetFromText } from '../../src/fleet/load.js';
import { parseFleetText } from '../../src/fleet/file.js';
import { validateFleet } from '../../src/fleet/validate.js';
import { fleetJsonSchema, fleetJsonSchemaText } from '../../src/fleet/schema.js';
import { UsageError } from '../../src/errors.js';

// The fleet file: every bad file is exit 2 naming FILE:LINE:COLUMN for each problem, all at once,
// and the JSON Schema shipped for editors is the one `svc apply --schema` prints.

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv2020) => Ajv2020;

const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

const GOOD = `version: 1
tenants:
  - tenantId: ${TENANT}
    domain: support.example.com
    settings:
      webhookPrimaryUri: https://hooks.example.com/svc
      webhookSecret: {env: SUPPORT_WEBHOOK_SECRET}
      webhookEventType: all
numbers:
  - number: "+15555550100"
    tenant: ${TENANT.toUpperCase()}
    type: sms
    class: P2P
    email: ops@example.com
    description: Support line
    billingPlan: P2P500
    settings:
      autoResponse: {enabled: true, message: "We answer within the hour."}
      rateLimit: 10
  - number: "+15555550101"
    tenant: ${TENANT}
    type: SMSMMS
    class: A2P
    campaignId: C1
    brandId: B1
`;

async function problemsOf(text: string, file = 'fleet.yaml'): Promise<string[]> {
  try {
    await fleetFromText(text, file);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    const lines = message.split('\n');
    return lines.length === 1 ? [message.replace(/ \(nothing was sent\)$/, '')] : lines.slice(1).map((l) => l.trim());
  }
  throw new Error('the file was accepted');
}

/** The GOOD file with one line replaced (by its text) or lines added after it. */
function edit(find: string, replace: string): string {
  expect(GOOD).toContain(find);
  return GOOD.replace(find, replace);
}

describe('a good fleet file', () => {
  it('is read in the document spelling: enumerations any case, tenant ids lower case, secrets as references', async () => {
    const fleet = await fleetFromText(GOOD, 'fleet.yaml');
    expect(fleet.tenants).toEqual([
      {
        tenantId: TENANT,
        domain: 'support.example.com',
        settings: { webhookPrimaryUri: 'https://hooks.example.com/svc', webhookSecret: { env: 'SUPPORT_WEBHOOK_SECRET' }, webhookEventType: 'All' },
      },
    ]);
    expect(fleet.numbers[0]).toEqual({
      number: '+15555550100',
      tenant: TENANT,
      type: 'SMS',
      class: 'P2P',
      fields: { email: 'ops@example.com', description: 'Support line', billingPlan: 'P2P500' },
      settings: { autoResponse: { enabled: true, message: 'We answer within the hour.' }, rateLimit: 10 },
    });
    expect(fleet.numbers[1]!.fields).toEqual({ campaignId: 'C1', brandId: 'B1' });
  });

  it('reads a good file to the same fleet by the quick reader and by the one that keeps positions', async () => {
    const slow = validateFleet(await parseFleetText(GOOD, 'fleet.yaml'));
    expect(slow.problems).toEqual([]);
    expect(await fleetFromText(GOOD, 'fleet.yaml')).toEqual(slow.fleet);
  });

  it('reads the same fleet from JSON with a .json name', async () => {
    const yaml = await import('yaml');
    const json = JSON.stringify(yaml.parse(GOOD), null, 2);
    expect(await fleetFromText(json, 'fleet.json')).toEqual(await fleetFromText(GOOD, 'fleet.yaml'));
  });
});

describe('a bad fleet file: exit 2, each problem at FILE:LINE:COLUMN', () => {
  const cases: [string, string, string[]][] = [
    ['an unknown key, with the closest known one', edit('    domain: support', '    domian: support'), ['fleet.yaml:4:5: unknown key "domian"; did you mean "domain"?']],
    ['an unknown top-level key', `${GOOD}numbrs: []\n`, ['fleet.yaml:26:1: unknown key "numbrs"; did you mean "numbers"?']],
    ['an unknown setting, with the closest path', edit('rateLimit: 10', 'rateLimt: 10'), ['fleet.yaml:19:7: settings.rateLimt is not a phone-number setting; did you mean "settings.rateLimit"?']],
    ['a mistyped setting', edit('rateLimit: 10', 'rateLimit: ten'), ['fleet.yaml:19:18: settings.rateLimit takes an integer of at least 0, not "ten"']],
    ['a bad E.164 number', edit('"+15555550101"', '"+0555"'), ['fleet.yaml:20:13: "+0555" is not an E.164 number']],
    ['a number YAML reads as an integer', edit('"+15555550101"', '+15555550101'), ['fleet.yaml:20:13: number takes text, not 15555550101 (write it in quotes: "+15555550101"']],
    ['a number listed twice', `${GOOD}  - {number: "+15555550100", tenant: ${TENANT}, type: SMS, class: P2P}\n`, ['fleet.yaml:26:14: +15555550100 is listed twice (also at line 10)']],
    ['an A2P number without its campaign and brand', edit('    campaignId: C1\n    brandId: B1\n', ''), ['fleet.yaml:20:5: +15555550101 is A2P and needs campaignId and brandId']],
    ['a tenant neither in the file nor a GUID', edit(`    tenant: ${TENANT}\n    type: SMSMMS`, '    tenant: support\n    type: SMSMMS'), ['fleet.yaml:21:13: tenant "support" is neither a tenantId of this file nor a GUID']],
    ['a secret written in clear (its value never repeated)', edit('{env: SUPPORT_WEBHOOK_SECRET}', 'hunter2'), ['fleet.yaml:7:22: settings.webhookSecret is written in clear; a secret goes in an environment variable']],
    ['a secret reference to a bad name', edit('{env: SUPPORT_WEBHOOK_SECRET}', '{env: 1SECRET}'), ['fleet.yaml:7:28: "1SECRET" is not an environment variable name']],
    ['a wrong enumeration', edit('type: SMSMMS', 'type: FAX'), ['fleet.yaml:22:11: type "FAX" is not one of SMS, MMS, SMSMMS']],
    ['an http link to another host', edit('https://hooks.example.com/svc', 'http://hooks.example.com/svc'), ['fleet.yaml:6:26: settings.webhookPrimaryUri "http://hooks.example.com/svc" must be an https:// URL']],
    ['a tenant listed twice', edit('numbers:\n', `  - tenantId: ${TENANT}\nnumbers:\n`), ['fleet.yaml:9:15: tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301 is listed twice (also at line 3)']],
    ['no version', GOOD.replace('version: 1\n', ''), ['fleet.yaml:1:1: no version']],
    ['another version', GOOD.replace('version: 1', 'version: 2'), ['fleet.yaml:1:10: version 2 is not known']],
    ['a YAML syntax error', `${GOOD}  - number: [1,\n`, ['fleet.yaml:27:1: Flow sequence']],
    ['a key given twice', edit('    class: P2P\n', '    class: P2P\n    class: A2P\n'), ['fleet.yaml:14:5: Map keys must be unique']],
    ['a missing type and class', edit('    type: SMSMMS\n    class: A2P\n', ''), ['fleet.yaml:20:5: +15555550101: no type', 'fleet.yaml:20:5: +15555550101: no class']],
    // Names every object has (constructor, toString ...) are keys of no table: named, not dropped.
    ['a key named like an object method', edit('    domain: support', '    constructor: support'), ['fleet.yaml:4:5: unknown key "constructor"']],
    ['a number key named like an object method', edit('    billingPlan: P2P500\n', '    billingPlan: P2P500\n    toString: x\n'), ['fleet.yaml:17:5: unknown key "toString"']],
    ['isMMSEnabled on an SMS number', edit('    billingPlan: P2P500\n', '    billingPlan: P2P500\n    isMMSEnabled: true\n'), ['fleet.yaml:17:19: +15555550100 is provisioned for SMS only']],
  ];
  it.each(cases)('%s', async (_, text, expected) => {
    const problems = await problemsOf(text);
    expect(problems).toHaveLength(expected.length);
    expected.forEach((start, i) => expect(problems[i]).toContain(start));
    expect(problems.join('\n')).not.toContain('hunter2');
  });

  it('names every problem at once, in file order', async () => {
    const text = edit('    domain: support', '    domian: support').replace('rateLimit: 10', 'rateLimit: -1').replace('type: SMSMMS', 'type: FAX');
    const problems = await problemsOf(text);
    expect(problems.map((p) => p.split(': ')[0])).toEqual(['fleet.yaml:4:5', 'fleet.yaml:19:18', 'fleet.yaml:22:11']);
  });

  it('JSON: a syntax error names file:line:column, and problems their JSON position', async () => {
    expect(await problemsOf('{"version": 1, "numbers": [}', 'f.json')).toEqual([expect.stringMatching(/^f\.json:1:28: /)]);
    const problems = await problemsOf(`{"version": 1,\n "numbers": [{"number": "+15555550100", "tenant": "x", "type": "SMS", "class": "P2P"}]}`, 'f.json');
    expect(problems).toEqual(['f.json:2:51: tenant "x" is neither a tenantId of this file nor a GUID (a tenant is named by its tenantId)']);
  });

  it('an empty file or a list is not a fleet', async () => {
    expect((await problemsOf(''))[0]).toContain('fleet.yaml:1:1: a fleet file is a mapping with version: 1');
    expect((await problemsOf('- a\n'))[0]).toContain('fleet.yaml:1:1: a fleet file is a mapping');
  });
});

describe('the JSON Schema of the file', () => {
  it('is shipped as schema/fleet.schema.json, as `svc apply --schema` prints it (npm run schema)', () => {
    expect(readFileSync(new URL('../../schema/fleet.schema.json', import.meta.url), 'utf8')).toBe(fleetJsonSchemaText());
  });

  it('accepts a good file and refuses what svc refuses, by the same tables', async () => {
    // strictRequired would want `then: {required}` to repeat the properties it names.
    const ajv = new Ajv2020({ strict: true, strictRequired: false, allErrors: true });
    addFormats(ajv);
    const validate = ajv.compile(fleetJsonSchema());
    const yaml = await import('yaml');
    const good = yaml.parse(GOOD.replace('all', 'All').replace('type: sms', 'type: SMS')) as unknown;
    expect(validate(good), JSON.stringify(validate.errors)).toBe(true);
    for (const bad of [
      edit('    domain: support', '    domian: support'),
      edit('rateLimit: 10', 'rateLimit: -1'),
      edit('{env: SUPPORT_WEBHOOK_SECRET}', 'hunter2'),
      edit('    campaignId: C1\n', ''),
      edit('"+15555550101"', '"+0555"'),
    ]) {
      expect(validate(yaml.parse(bad.replace('all', 'All').replace('type: sms', 'type: SMS'))), bad).toBe(false);
    }
  });
});
