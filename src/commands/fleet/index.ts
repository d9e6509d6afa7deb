import { defineCommands, defineOption, defineOptions } from '../spec.js';

// Provisioning as code: a file says what the fleet of tenants and numbers is, `diff` says what
// would change, `apply` makes it so, `export` writes the live state as such a file.

const fileOption = defineOption({ flags: '-f, --file <path>', description: 'the fleet file: YAML, or JSON when its name ends in .json', complete: 'file' });
const concurrencyOption = defineOption({ flags: '--concurrency <n>', description: 'requests at once (default 8)' });
const planOptions = defineOptions([
  fileOption,
  { flags: '--prune', description: 'also unprovision numbers of the file\'s tenants that the file does not list' },
  concurrencyOption,
]);

export const fleetCommands = defineCommands([
  {
    path: ['diff'],
    summary: 'show what `svc apply` would change to make tenants and numbers match a fleet file',
    description:
      'Reads the live state (the active-number list, page by page, and a number\'s own read only where\n' +
      'the list cannot answer) and prints the changes: + to create or provision, ~ to update (field\n' +
      'by field), - to unprovision (with --prune), ! blocked (a change no request can make). Only what\n' +
      'the file names is compared. Exit 0 either way, or with --exit-code 7 when anything would change.',
    options: [
      ...planOptions,
      { flags: '--exit-code', description: 'exit 7 when the live state differs from the file, 0 when in sync' },
      { flags: '--out <plan>', description: 'also save the plan as JSON, for `svc apply --plan`', complete: 'file' },
    ],
    examples: ['svc diff -f fleet.yaml', 'svc diff -f fleet.yaml --exit-code --out plan.json', 'svc diff -f fleet.yaml --json | jq \'.changes[] | select(.action == "update-number")\''],
    paged: true,
    exitCodes: [1, 3, [7, 'with --exit-code: the live state differs from the file']],
    load: () => import('./diff.js'),
  },
  {
    path: ['apply'],
    summary: 'make tenants and numbers match a fleet file (a second run changes nothing)',
    description:
      'Creates and updates tenants, submits the fewest provision orders for missing numbers (one per\n' +
      'tenant and type/class, split at 100 numbers), waits for them, then updates only the fields and\n' +
      'settings that differ; with --prune it unprovisions numbers of the file\'s tenants that the file\n' +
      'does not list (asked on a terminal, --yes otherwise). Orders it submits are recorded before they\n' +
      'are sent, so that a run killed at any moment and run again waits for them instead of ordering\n' +
      'again. Exit 0 when the live state matches the file, 5 when an order failed or a wait timed out,\n' +
      '1 when a request failed or a change is blocked, 2 for a bad file or an unset secret variable.',
    options: [
      ...planOptions,
      { flags: '--plan <plan>', description: 'apply exactly this saved plan (`svc diff --out`); refused when the live state moved', complete: 'file' },
      { flags: '--schema', description: 'print the JSON Schema of the fleet file (for editors) and exit' },
      { flags: '--update-secrets', description: 'also send the file\'s secrets to tenants that exist (they cannot be compared)' },
      { flags: '--no-wait', description: 'submit the orders and stop; numbers may still be Pending' },
      { flags: '--wait-timeout <seconds>', description: 'stop waiting for orders after this many seconds (exit 5)' },
      { flags: '--dry-run', description: 'print the plan and change nothing (the same as `svc diff`)' },
    ],
    examples: [
      'svc apply -f fleet.yaml',
      'svc apply -f fleet.yaml --prune --yes --wait-timeout 600',
      'svc apply --plan plan.json',
      'svc apply --schema > fleet.schema.json',
    ],
    exitCodes: [
      [1, 'a request failed, a change is blocked, or a saved plan no longer matches the live state'],
      3,
      [5, 'an order failed or the wait for orders timed out'],
    ],
    load: () => import('./apply.js'),
  },
  {
    path: ['export'],
    summary: 'write the live tenants and numbers as a fleet file that `svc apply` takes',
    description:
      'YAML on stdout (JSON with --json). Secrets are written as {env: NAME} references with generated\n' +
      'names, listed on stderr; `svc diff` of the exported file shows nothing to change.',
    options: [{ flags: '--tenant <guid>', description: 'only this tenant and its numbers (repeatable)', repeatable: true }],
    examples: ['svc export > fleet.yaml', 'svc export --tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --json > fleet.json'],
    exitCodes: [1, 3, [4, 'a --tenant is not in the account']],
    load: () => import('./export.js'),
  },
]);
