import { describe, expect, it } from 'vitest';
import { buildProvisionEntries } from '../../src/numbers/provision-entries.js';
import { draftsFromArguments, draftsFromCsv, draftsFromFileText, draftsFromJson } from '../../src/numbers/provision-drafts.js';
import { UsageError } from '../../src/errors.js';

const P2P_SMS = { provisionType: 'SMS', provisionClass: 'P2P' };

describe('entries from a CSV file', () => {
  it('maps every column to an entry field, case-insensitively, with settings.PATH columns typed', () => {
    const csv =
      'Number,email,description,domain,platform_type,campaignId,brandId,loaUrl,billingPlan,type,class,settings.autoResponse.enabled\n' +
      '+15551230001,a@example.com,"Desk, 1",example.com,platformc,C1,B1,https://loa.example/x.pdf,A2P250,smsmms,a2p,yes\n';
    const { drafts } = draftsFromCsv(csv, 'n.csv');
    const built = buildProvisionEntries(drafts, { fields: {} });
    expect(built.problems).toEqual([]);
    expect(built.entries).toEqual([
      {
        number: '+15551230001',
        email: 'a@example.com',
        description: 'Desk, 1',
        domain: 'example.com',
        platformType: 'PlatformC',
        campaignId: 'C1',
        brandId: 'B1',
        loaUrl: 'https://loa.example/x.pdf',
        billingPlan: 'A2P250',
        messagingFeature: { provisionType: 'SMSMMS', provisionClass: 'A2P' },
        settings: { autoResponse: { enabled: true } },
      },
    ]);
  });

  it('refuses file-level problems with file:line', () => {
    const refuse = (text: string): string => {
      try {
        draftsFromCsv(text, 'n.csv');
      } catch (error) {
        if (error instanceof UsageError) return error.message;
      }
      throw new Error('not refused');
    };
    expect(refuse('')).toMatch(/^n\.csv: empty file/);
    expect(refuse('number,colour\n+15551230001,red')).toBe(
      'n.csv:1: unknown column "colour"; the columns are number, email, description, domain, platformType, campaignId, brandId, loaUrl, billingPlan, type, class, settings.PATH',
    );
    expect(refuse('email\na@example.com')).toMatch(/^n\.csv:1: no "number" column/);
    expect(refuse('+15551230001\n+15551230002')).toMatch(/^n\.csv:1: the first row holds a phone number/);
    expect(refuse('number,phone\n1,2')).toMatch(/^n\.csv:1: columns "number" and "phone" say the same thing/);
    expect(refuse('number,settings.optOut.enabeld\n1,2')).toMatch(/^n\.csv:1: column "settings.optOut.enabeld": settings.optOut.enabeld is not a phone-number setting$/);
  });

  it('reports row problems on their line', () => {
    const csv = 'number,email,settings.rateLimit\n+15551230001,a@example.com\n+15551230002,b@example.com,1,2\n"+1555,x\n';
    const built = buildProvisionEntries(draftsFromCsv(csv, 'n.csv').drafts, { fields: {}, ...P2P_SMS });
    expect(built.problems).toEqual([
      'n.csv:2: 2 fields where the header has 3',
      'n.csv:3: 4 fields where the header has 3 (a field that holds a comma must be in double quotes)',
      'n.csv:4: a quoted field opened on line 4 is never closed (a missing " before the end of the file)',
    ]);
    const typed = buildProvisionEntries(draftsFromCsv('number,settings.rateLimit\n+15551230001,lots\n', 'n.csv').drafts, { fields: {}, ...P2P_SMS });
    expect(typed.problems).toEqual(['n.csv:2: settings.rateLimit takes a whole number of at least 0, not "lots"']);
  });
});

describe('entries from a JSON file', () => {
  it('reads an array of entries with their lines', () => {
    const text = '[\n {"number": "+15551230001", "messagingFeature": {"provisionType": "SMS", "provisionClass": "P2P"}},\n {"number": "12"}\n]';
    const built = buildProvisionEntries(draftsFromJson(text, 'e.json').drafts, { fields: {}, ...P2P_SMS });
    expect(built.problems).toEqual(['e.json:3: "12" is not an E.164 number (a + then 8 to 15 digits, the first not 0, e.g. +15551234567)']);
  });

  it('reads a whole request with its tenant and action', () => {
    const text = JSON.stringify({ action: 'Provision', tenantId: 'abc', phoneNumbers: [{ number: '+15551230001', settings: { rateLimit: 3 } }] }, null, 2);
    const file = draftsFromJson(text, 'r.json');
    expect(file.tenantId).toBe('abc');
    expect(file.action).toBe('Provision');
    expect(buildProvisionEntries(file.drafts, { fields: {}, ...P2P_SMS }).entries[0]).toEqual({
      number: '+15551230001',
      messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' },
      settings: { rateLimit: 3 },
    });
  });

  it('names wrong types, unknown fields and bad settings of an entry', () => {
    const text = '[\n{"number": "+15551230001", "email": 5},\n{"number": "+15551230002", "colour": "red"},\n{"number": "+15551230003", "settings": {"rateLimit": true}},\n"+15551230004"\n]';
    const built = buildProvisionEntries(draftsFromJson(text, 'e.json').drafts, { fields: {}, ...P2P_SMS });
    expect(built.problems).toEqual([
      'e.json:2: "email" must be a string, not 5',
      expect.stringMatching(/^e\.json:3: unknown field "colour"/),
      'e.json:4: settings.rateLimit takes an integer of at least 0, not true',
      'e.json:5: an entry must be an object like {"number": "+15551234567"}, not "+15551230004"',
    ]);
  });

  it('names a malformed file by line and column', () => {
    expect(() => draftsFromFileText('[\n{"number": }\n]', 'bad.json')).toThrow(/^bad\.json:2:\d+: invalid JSON/);
  });
});

describe('checking entries', () => {
  it('fills empty fields from the flags and refuses a flag that contradicts an entry', () => {
    const { drafts } = draftsFromCsv('number,email\n+15551230001,a@example.com\n+15551230002,\n', 'n.csv');
    const ok = buildProvisionEntries(drafts, { fields: { description: 'D' }, ...P2P_SMS });
    expect(ok.entries.map((e) => [e.email, e.description])).toEqual([
      ['a@example.com', 'D'],
      [undefined, 'D'],
    ]);
    const clash = buildProvisionEntries(drafts, { fields: { email: 'b@example.com' }, ...P2P_SMS });
    expect(clash.problems).toEqual(['n.csv:2: email is "a@example.com" for +15551230001 but --email says "b@example.com"; give one or the other']);
  });

  it('takes a file and a flag that spell the same enumeration value in another case as agreeing', () => {
    const { drafts } = draftsFromCsv('number,type,class,platformType\n+15551230001,sms,p2p,platformc\n', 'n.csv');
    const built = buildProvisionEntries(drafts, { fields: { platformType: 'PlatformC' }, provisionType: 'SMS', provisionClass: 'P2P' });
    expect(built.problems).toEqual([]);
    expect(built.entries[0]).toMatchObject({ platformType: 'PlatformC', messagingFeature: { provisionType: 'SMS', provisionClass: 'P2P' } });
    const clash = buildProvisionEntries(drafts, { fields: {}, provisionType: 'MMS', provisionClass: 'P2P' });
    expect(clash.problems).toEqual(['n.csv:2: the provision type is "sms" for +15551230001 but --type says "MMS"; give one or the other']);
  });

  it('needs a type and a class, and matches them case-insensitively', () => {
    const drafts = draftsFromArguments(['+15551230001']);
    expect(buildProvisionEntries(drafts, { fields: {} }).problems).toEqual([
      'no provision type for +15551230001: give --type SMS|MMS|SMSMMS',
      'no provision class for +15551230001: give --class P2P|A2P',
    ]);
    expect(buildProvisionEntries(drafts, { fields: {}, provisionType: 'mms', provisionClass: 'p2p' }).entries[0]!.messagingFeature).toEqual({
      provisionType: 'MMS',
      provisionClass: 'P2P',
    });
    expect(buildProvisionEntries(drafts, { fields: {}, provisionType: 'RCS', provisionClass: 'P3P' }).problems).toEqual([
      'provision type "RCS" is not one of SMS, MMS, SMSMMS',
      'provision class "P3P" is not one of P2P, A2P',
    ]);
  });

  it('refuses mixed types in one order, duplicates, bad emails and bad LOA links', () => {
    const { drafts } = draftsFromCsv('number,type\n+15551230001,SMS\n+15551230002,MMS\n', 'n.csv');
    expect(buildProvisionEntries(drafts, { fields: {}, provisionClass: 'P2P' }).problems).toEqual([
      'n.csv:3: +15551230002 is MMS/P2P but +15551230001 is SMS/P2P; an order has one provision type and class, so provision them in separate orders',
    ]);
    const dup = [...draftsFromArguments(['+15551230001']), ...draftsFromCsv('number\n+15551230001\n', 'n.csv').drafts];
    expect(buildProvisionEntries(dup, { fields: {}, ...P2P_SMS }).problems).toEqual(['n.csv:2: +15551230001 is listed twice (also on the command line)']);
    const fields = buildProvisionEntries(draftsFromArguments(['+15551230001']), { fields: { email: 'nobody', loaUrl: 'http://evil.example/loa.pdf' }, ...P2P_SMS });
    expect(fields.problems).toEqual([
      '"nobody" is not an email address',
      'the LOA link "http://evil.example/loa.pdf" must be an https:// URL (the one `svc number loa upload` prints)',
    ]);
  });
});
