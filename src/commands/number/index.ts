import { defineCommands, defineOption, defineOptions, type GroupSpec } from '../spec.js';
import { BILLING_PLAN_NAMES, PLATFORM_TYPES, PROVISION_CLASSES, PROVISION_TYPES } from '../../domain/api/enums.js';

export const numberGroup: GroupSpec = { name: 'number', summary: 'phone numbers: provision, list, read, update, LOA upload' };
export const numberLoaGroup: GroupSpec = { name: 'number loa', summary: 'letters of authorization for provisioning' };

const tenantOption = defineOption({ flags: '--tenant <guid>', description: 'tenant GUID (default: SVC_TENANT, then the profile)' });

const waitOptions = defineOptions([
  { flags: '--wait', description: 'follow the order to its end, as `svc order watch` does (exit 5 if it fails)' },
  { flags: '--interval <seconds>', description: 'with --wait: first poll interval in seconds' },
  { flags: '--wait-timeout <seconds>', description: 'with --wait: stop waiting after this many seconds (exit 5)' },
]);

export const numberCommands = defineCommands([
  {
    path: ['number', 'provision'],
    summary: 'provision phone numbers for a tenant (answers with the order)',
    description:
      'Every field of a provision entry can be given by flag (for every NUMBER) or per entry in --file:\n' +
      'JSON (an array of entries, or a whole request {"tenantId", "phoneNumbers": [...]}) or CSV with a\n' +
      'header row: number,email,description,domain,platformType,campaignId,brandId,loaUrl,billingPlan,\n' +
      'type,class and settings.PATH columns. Flags fill what an entry leaves empty; a flag that\n' +
      'contradicts an entry is an error. Everything is checked before the request is sent.',
    args: [{ name: 'NUMBER', description: 'E.164 numbers, e.g. +15551234567 (typed in on a terminal when neither they nor --file are given)', variadic: true }],
    options: [
      tenantOption,
      { flags: '--type <type>', description: 'provision type', choices: PROVISION_TYPES },
      { flags: '--class <class>', description: 'provision class (A2P needs --campaign-id and --brand-id)', choices: PROVISION_CLASSES },
      { flags: '--campaign-id <id>', description: '10DLC campaign (A2P)' },
      { flags: '--brand-id <id>', description: '10DLC brand (A2P)' },
      { flags: '--email <email>', description: 'address for notifications' },
      { flags: '--description <text>', description: 'description of the number' },
      { flags: '--domain <domain>', description: 'domain (defaults to the domain of the email)' },
      { flags: '--platform-type <type>', description: 'chat platform', choices: PLATFORM_TYPES },
      { flags: '--loa-url <url>', description: 'letter of authorization, from `svc number loa upload`' },
      { flags: '--billing-plan <plan>', description: 'billing plan, e.g. P2P500 or A2P250' },
      { flags: '--file <entries>', description: 'entries from a JSON or CSV file', complete: 'file' },
      ...waitOptions,
    ],
    examples: [
      'svc number provision +15551234567 --type SMS --class P2P --email ops@example.com',
      'svc number provision +15551234567 --type SMSMMS --class A2P --campaign-id C1234 --brand-id B5678 --wait',
      'svc number provision --file numbers.csv --tenant 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --type SMS --class P2P --wait --json',
    ],
    exitCodes: [1, 3, 4, [5, 'with --wait: the order failed, or --wait-timeout passed']],
    load: () => import('./provision.js'),
  },
  {
    path: ['number', 'unprovision'],
    summary: 'release phone numbers of a tenant (answers with the order)',
    args: [{ name: 'NUMBER', description: 'E.164 numbers', required: true, variadic: true, ask: true }],
    options: [tenantOption, ...waitOptions],
    examples: ['svc number unprovision +15551234567 --wait'],
    exitCodes: [1, 3, 4, [5, 'with --wait: the order failed, or --wait-timeout passed']],
    load: () => import('./unprovision.js'),
  },
  {
    path: ['number', 'list'],
    summary: 'list active phone numbers, one page or --all of them',
    options: [
      { flags: '--page <n>', description: 'page to read, from 1' },
      { flags: '--limit <n>', description: 'numbers per page (the server sets the default and the maximum)' },
      { flags: '--all', description: 'read every page from --page on, printing each as it arrives' },
    ],
    examples: ['svc number list', 'svc number list --all -o ndjson | jq -r .phoneNumber', 'svc number list --page 2 --limit 50', 'svc number list --fields phoneNumber,status,settings.rateLimit'],
    paged: true,
    exitCodes: [1, 3, 4],
    load: () => import('./list.js'),
  },
  {
    path: ['number', 'get'],
    summary: 'show a phone number and its settings',
    args: [{ name: 'NUMBER', description: 'E.164 number', required: true, ask: true }],
    examples: ['svc number get +15551234567', 'svc number get +15551234567 --json | jq .settings'],
    paged: true,
    exitCodes: [1, 3, 4],
    load: () => import('./get.js'),
  },
  {
    path: ['number', 'update'],
    summary: 'change the updatable fields and settings of a phone number',
    description:
      'Only the fields given are sent. --set takes settings.PATH=VALUE with PATH from the settings\n' +
      'schema (notifications, autoResponse, optIn, optOut, autoForward, outOfOffice, signature,\n' +
      'aiSettings, rateLimit, noOutboundTexts) and VALUE typed by it: true/false, whole numbers,\n' +
      'ISO 8601 dates, comma-separated lists, cron expressions. owner, billableOwner, provider and\n' +
      'the number itself cannot be changed.',
    args: [{ name: 'NUMBER', description: 'E.164 number', required: true, ask: true }],
    options: [
      { flags: '--description <text>', description: 'description' },
      { flags: '--user-id <id>', description: 'user id or email associated with the number' },
      { flags: '--external-id <id>', description: 'your own tracking id' },
      { flags: '--platform-type <type>', description: 'chat platform', choices: PLATFORM_TYPES },
      { flags: '--campaign-id <id>', description: '10DLC campaign (A2P)' },
      { flags: '--brand-id <id>', description: '10DLC brand (A2P)' },
      { flags: '--loa-url <url>', description: 'letter of authorization link' },
      { flags: '--activated <bool>', description: 'isActivated: true or false' },
      { flags: '--mms <bool>', description: 'isMMSEnabled: true or false' },
      { flags: '--billing-plan <name>', description: 'billingPlanName', choices: BILLING_PLAN_NAMES },
      { flags: '--set <assignment>', description: 'a setting: settings.PATH=VALUE (repeatable)', repeatable: true },
      { flags: '--file <update.json>', description: 'fields to update from a JSON file (flags and --set override it)', complete: 'file' },
    ],
    examples: [
      'svc number update +15551234567 --description "Support line" --set settings.autoResponse.enabled=true --set "settings.autoResponse.message=We are closed"',
      'svc number update +15551234567 --set settings.autoForward.emailAddresses=a@example.com,b@example.com',
      'svc number update +15551234567 --set "settings.optOut.periodicCron=0 9 * * 1" --set settings.rateLimit=10',
    ],
    exitCodes: [1, 3, 4],
    load: () => import('./update.js'),
  },
  {
    path: ['number', 'loa', 'upload'],
    summary: 'upload a letter of authorization (PDF, at most 5 MB) and print its link for --loa-url',
    args: [{ name: 'FILE', description: 'the PDF file', required: true }],
    examples: ['svc number loa upload loa.pdf', 'svc number provision +15551234567 --type SMS --class P2P --loa-url "$(svc number loa upload loa.pdf)"'],
    exitCodes: [1, 3, 4],
    load: () => import('./loa-upload.js'),
  },
]);
