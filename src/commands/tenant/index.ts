import { defineCommands, defineOptions, type GroupSpec } from '../spec.js';
import { WEBHOOK_EVENT_TYPES } from '../../domain/api/enums.js';

export const tenantGroup: GroupSpec = { name: 'tenant', summary: 'tenants and their webhook settings' };

const webhookOptions = defineOptions([
  { flags: '--domain <domain>', description: 'custom domain of the tenant' },
  { flags: '--webhook-primary-uri <url>', description: 'primary webhook endpoint (https://)' },
  { flags: '--webhook-secondary-uri <url>', description: 'fallback webhook endpoint (https://)' },
  { flags: '--webhook-secret-stdin', description: 'read the webhook signing secret from standard input' },
  { flags: '--webhook-secret-env <var>', description: 'take the webhook signing secret from this environment variable' },
  { flags: '--webhook-basic-auth-username <user>', description: 'Basic auth user the service sends to the webhook' },
  { flags: '--webhook-basic-auth-password-stdin', description: 'read the webhook Basic auth password from standard input' },
  { flags: '--webhook-event-type <type>', description: 'which events are sent', choices: WEBHOOK_EVENT_TYPES },
  { flags: '--file <tenant.json>', description: 'take the body from a JSON file (flags override its fields)', complete: 'file' },
]);

export const tenantCommands = defineCommands([
  {
    path: ['tenant', 'list'],
    summary: "list the tenants of your account",
    examples: ['svc tenant list', 'svc tenant list --json | jq -r ".[].tenantId"', 'svc tenant list --fields tenantId,settings.webhookPrimaryUri'],
    paged: true,
    exitCodes: [1, 3, 4],
    load: () => import('./list.js'),
  },
  {
    path: ['tenant', 'get'],
    summary: 'show a tenant and its settings (the webhook secret stays hidden)',
    args: [{ name: 'ID', description: "tenant GUID (default: SVC_TENANT, then the profile's tenant)" }],
    examples: ['svc tenant get 3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'svc tenant get   # the default tenant'],
    paged: true,
    exitCodes: [1, 3, 4],
    load: () => import('./get.js'),
  },
  {
    path: ['tenant', 'create'],
    summary: 'create a tenant, optionally with webhook settings',
    options: [
      { flags: '--tenant-id <guid>', description: 'choose the GUID (generated when omitted)' },
      ...webhookOptions,
      { flags: '--use', description: "make the new tenant the active profile's default (asked on a terminal otherwise)" },
    ],
    examples: [
      'svc tenant create --domain example.com',
      'printf %s "$WEBHOOK_SECRET" | svc tenant create --webhook-primary-uri https://hooks.example.com/svc --webhook-secret-stdin --webhook-event-type All',
      'svc tenant create --file tenant.json',
      'svc tenant create --domain example.com --use',
    ],
    exitCodes: [1, 3, 4],
    load: () => import('./create.js'),
  },
  {
    path: ['tenant', 'update'],
    summary: "change a tenant's domain or webhook settings (other settings are kept)",
    args: [{ name: 'ID', description: "tenant GUID (default: SVC_TENANT, then the profile's tenant)" }],
    options: webhookOptions,
    examples: [
      'svc tenant update --webhook-event-type All',
      'svc tenant update 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --webhook-event-type MessageReceived',
      'WEBHOOK_SECRET=... svc tenant update 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --webhook-secret-env WEBHOOK_SECRET',
    ],
    exitCodes: [1, 3, 4],
    load: () => import('./update.js'),
  },
  {
    path: ['tenant', 'use'],
    summary: "make a tenant the active profile's default (for commands that need a tenant)",
    args: [{ name: 'ID', description: 'tenant GUID', required: true, ask: true }],
    examples: ['svc tenant use 3f2504e0-4f89-11d3-9a0c-0305e82c3301', 'svc --profile staging tenant use 3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
    exitCodes: [1, 3, 4],
    load: () => import('./use.js'),
  },
]);
