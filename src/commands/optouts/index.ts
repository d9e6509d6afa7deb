import { defineCommands, defineOption, type GroupSpec } from '../spec.js';

export const optoutsGroup: GroupSpec = {
  name: 'optouts',
  summary: 'the people who asked not to be messaged: kept by webhook listen, honoured by every send',
};

const storeOption = defineOption({
  flags: '--store <dir>',
  description: 'the event store the list is kept beside (default: events/ in the user data directory, or $SVC_DATA_DIR/events)',
  complete: 'file',
});

const numberOption = defineOption({
  flags: '--number <from>',
  description: 'the sending number the opt-out is about (default: every number)',
});

const tenantOption = defineOption({
  flags: '--tenant <guid>',
  description: 'the tenant the change is about: without --number, every number of that tenant (default: of every tenant)',
});

const tenantFilterOption = defineOption({
  flags: '--tenant <guid>',
  description: "only what applies to this tenant's sends: its every-number opt-outs and those of no tenant in particular, not other tenants'",
});

const ABOUT = [
  'The list lives in optouts.ndjson beside the event store. `svc webhook listen` adds whoever texts',
  'STOP (or another opt-out word) and lifts it on START; `svc send` leaves them out.',
].join('\n');

export const optoutsCommands = defineCommands([
  {
    path: ['optouts', 'list'],
    summary: 'list who is opted out, of which sending number, since when, why and by whom',
    description: ABOUT,
    options: [{ flags: '--number <from>', description: 'only the opt-outs a send from this number honours (its own and every number\'s)' }, tenantFilterOption, storeOption],
    examples: [
      'svc optouts list',
      'svc optouts list --number +15555550100 --json',
      'svc optouts list --number +15555550100 --tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    ],
    paged: true,
    exitCodes: [[1, 'the opt-out list could not be read']],
    load: () => import('./list.js'),
  },
  {
    path: ['optouts', 'add'],
    summary: 'opt numbers out by hand (of one sending number, or of every number)',
    description: ABOUT,
    args: [{ name: 'NUMBER', description: 'E.164 numbers of the people who opted out', required: true, variadic: true }],
    options: [numberOption, tenantOption, { flags: '--reason <text>', description: 'why (kept with the entry; default "added by hand")' }, storeOption],
    examples: [
      'svc optouts add +14155551001 --reason "asked on the phone"',
      'svc optouts add +14155551001 +14155551002 --number +15555550100',
      'svc optouts add +14155551001 --tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    ],
    exitCodes: [[1, 'the opt-out list could not be read or written']],
    load: () => import('./add.js'),
  },
  {
    path: ['optouts', 'remove'],
    summary: 'lift opt-outs by hand (the person consented again)',
    description: [
      ABOUT,
      'With --number, the opt-out of that sending number is lifted, with the every-number one of --tenant and',
      'one kept for no tenant in particular (as START does); with --tenant alone, that tenant\'s every-number',
      'opt-out and the person\'s opt-outs recorded for it; with neither, every opt-out the person has.',
    ].join('\n'),
    args: [{ name: 'NUMBER', description: 'E.164 numbers', required: true, variadic: true }],
    options: [numberOption, tenantOption, { flags: '--reason <text>', description: 'why (kept in the log)' }, storeOption],
    examples: ['svc optouts remove +14155551001', 'svc optouts remove +14155551001 --number +15555550100'],
    exitCodes: [[1, 'the opt-out list could not be read or written']],
    load: () => import('./remove.js'),
  },
  {
    path: ['optouts', 'import'],
    summary: 'add the opt-outs of a CSV file or a list of numbers (a spreadsheet\'s export works)',
    description: [
      'One number a line, or a CSV with a header row: the number in a column named number, phone, to or',
      'recipient (else the first); optional columns sending_number (or from), reason and tenant. A row without',
      'a sending number is about every number (of its tenant, else of every tenant), or about --number when',
      'given. Importing again adds nothing twice; an export imports back as it was.',
    ].join('\n'),
    args: [{ name: 'FILE', description: 'the CSV or text file', required: true, complete: 'file' }],
    options: [numberOption, storeOption],
    examples: ['svc optouts import unsubscribed.csv', 'svc optouts import stops.txt --number +15555550100'],
    exitCodes: [[1, 'the opt-out list could not be read or written']],
    load: () => import('./import.js'),
  },
  {
    path: ['optouts', 'rebuild'],
    summary: 'rebuild the list from the inbound messages the event store holds (a store older than the list)',
    description: [
      'Runs every stored MessageReceived, oldest first, through the rules webhook listen applies: STOP and',
      'the other opt-out words, START, UNSTOP and YES. Nothing is recorded twice, and a change older than',
      'the newest the list holds for that person is skipped (a later decision stands). With --number-settings',
      'each receiving number\'s own optOut/optIn words are read from the service too.',
    ].join('\n'),
    options: [{ flags: '--number-settings', description: 'also read each receiving number\'s own opt-out and opt-in words (needs the service)' }, storeOption],
    examples: ['svc optouts rebuild', 'svc optouts rebuild --store ./events --number-settings --json'],
    load: () => import('./rebuild.js'),
  },
  {
    path: ['optouts', 'export'],
    summary: 'write the list as CSV (to FILE, or to standard output) for a spreadsheet',
    args: [{ name: 'FILE', description: 'where to write (default: standard output)', complete: 'file' }],
    options: [{ flags: '--number <from>', description: 'only the opt-outs a send from this number honours' }, tenantFilterOption, storeOption],
    examples: ['svc optouts export optouts.csv', 'svc optouts export | head', 'svc optouts export acme.csv --tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
    exitCodes: [[1, 'the opt-out list could not be read']],
    load: () => import('./export.js'),
  },
]);
