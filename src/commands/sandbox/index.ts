import { defineCommands, defineOption, defineOptions, type GroupSpec } from '../spec.js';
import { SANDBOX_DEFAULT_PORT } from '../../domain/sandbox-defaults.js';
import { MAX_MEDIA_PER_MESSAGE } from '../../domain/media-formats.js';
import { MESSAGE_STATUSES, ORDER_STATUSES } from '../../domain/api/enums.js';

export const sandboxGroup: GroupSpec = { name: 'sandbox', summary: 'run a local emulator of the service, trigger its webhooks, read its OpenAPI document' };
export const sandboxTriggerGroup: GroupSpec = { name: 'sandbox trigger', summary: 'send a webhook event of your choice to your tenant, like stripe trigger' };
export const sandboxWebhooksGroup: GroupSpec = { name: 'sandbox webhooks', summary: "the sandbox's record of webhook deliveries: attempts, failures, replays" };

const setOption = defineOption({
  flags: '--set <field=value>',
  description: 'override a payload field (repeatable); VALUE is read as JSON when it is JSON (3, true, null, "text", [..]), else as text',
  repeatable: true,
});

const inboundOptions = defineOptions([
  { flags: '--to <number>', description: 'your sandbox number that receives the message (E.164)' },
  { flags: '--from <number>', description: 'the sender (E.164); shorthand for --set from=' },
  { flags: '--body <text>', description: 'the message text (may be omitted with --media); shorthand for --set message=' },
  {
    flags: '--media <url>',
    description: `a media link (https://, or http:// on loopback such as the sandbox's own links); up to ${MAX_MEDIA_PER_MESSAGE}, repeatable`,
    repeatable: true,
  },
  setOption,
]);

const inboundDescription = [
  'Calls the sandbox-only endpoint POST /api/v1/sandbox/inbound with the profile in use, which',
  'must point at a sandbox. --to is your active number, --from the sender. The tenant of --to',
  'receives a MessageReceived webhook unless its event filter or missing URI rules it out.',
  '--set FIELD=VALUE overrides any field of the payload; a named flag and --set for the same',
  'field is a usage error (exit 2).',
].join('\n');

export const sandboxCommands = defineCommands([
  {
    path: ['sandbox', 'start'],
    summary: 'run a local emulator of the whole service until Ctrl-C',
    description: [
      'Serves every endpoint of the API under /api/v1 on plain HTTP, with orders and messages that',
      'move through their states on timers, media links it hosts itself, and webhooks to your',
      'tenants\' URIs (http:// allowed for loopback targets). The fixed account sandbox@example.com',
      '/ sandbox always exists; connect with `svc auth login --sandbox`. Without --state, everything',
      'is lost when it stops; with it, every answered write is on disk before its answer (a change',
      'log beside FILE, folded into FILE on a clean stop). --debug prints one line per request on',
      'stderr (never credentials). Its OpenAPI document is at /api/v1/openapi.json.',
    ].join('\n'),
    options: [
      { flags: '--port <n>', description: `port to listen on (default ${SANDBOX_DEFAULT_PORT}; 0 picks a free one)` },
      { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
      { flags: '--state <file>', description: 'keep everything in this JSON file and reload it on start', complete: 'file' },
      { flags: '--order-delay <ms>', description: 'time for a P2P order to complete, A2P takes 5x (default 2000)' },
      { flags: '--time-scale <x>', description: 'divide every delay (orders, message steps, webhook retries) by X (default 1)' },
      { flags: '--faults <rate>', description: 'share of API requests (0 to 1) answered 500, 503, 429 or dropped (default 0)' },
      { flags: '--rate-limit <n>', description: "messages a second per account (token bucket, one second of burst; 429 RATE_LIMITED beyond); numbers' settings.rateLimit apply too" },
      { flags: '--user <email:password>', description: 'add an account (repeatable); the password is never printed', repeatable: true },
    ],
    examples: [
      'svc sandbox start',
      'svc sandbox start --port 0 --json',
      'svc sandbox start --state sandbox.json --order-delay 500 --faults 0.1',
      'svc sandbox start --time-scale 60 --user dev@example.com:dev-pass',
      'svc sandbox start --rate-limit 50',
    ],
    exitCodes: [[1, 'the port is in use or not allowed, or the --state file could not be used']],
    load: () => import('./start.js'),
  },
  {
    path: ['sandbox', 'inbound'],
    summary: "simulate an incoming message to one of your sandbox numbers (= sandbox trigger message-received)",
    description: inboundDescription,
    options: inboundOptions,
    examples: [
      'svc sandbox inbound --to +15551230001 --from +15559870002 --body "hello"',
      'svc sandbox inbound --to +15551230001 --from +15559870002 --body "look" --media https://example.com/cat.png',
      'svc sandbox inbound --to +15551230001 --from +15559870002 --body "hi" --json | jq .deliveryId',
    ],
    exitCodes: [1, 3, [4, 'the number is not yours, or the service is not a sandbox']],
    load: () => import('./inbound.js'),
  },
  {
    path: ['sandbox', 'trigger', 'message-received'],
    summary: 'send a MessageReceived webhook: an incoming message to one of your numbers',
    description: inboundDescription,
    options: inboundOptions,
    examples: [
      'svc sandbox trigger message-received --to +15551230001 --from +15559870002 --body "STOP"',
      'svc sandbox trigger message-received --to +15551230001 --from +15559870002 --body "hi" --set tag=vip --set segmentCount=3',
    ],
    exitCodes: [1, 3, [4, 'the number is not yours, or the service is not a sandbox']],
    load: () => import('./inbound.js'),
  },
  {
    path: ['sandbox', 'trigger', 'delivery-receipt'],
    summary: 'send a DeliveryReceipt webhook for one of your messages, with any status you choose',
    description: [
      "The payload is the message's current receipt with your overrides; the stored message does not",
      'change. --status, --status-reason, --error-code and --error-message are shorthands for --set',
      'of those fields. deliveredAt is left out unless the status is delivered (or you --set it).',
    ].join('\n'),
    options: [
      { flags: '--message <id>', description: 'the message id (GUID)' },
      { flags: '--status <status>', description: 'shorthand for --set status=', choices: MESSAGE_STATUSES },
      { flags: '--status-reason <text>', description: 'shorthand for --set statusReason=' },
      { flags: '--error-code <code>', description: 'shorthand for --set errorCode=' },
      { flags: '--error-message <text>', description: 'shorthand for --set errorMessage=' },
      setOption,
    ],
    examples: [
      'svc sandbox trigger delivery-receipt --message 3f2504e0-4f89-11d3-9a0c-0305e82c3301',
      'svc sandbox trigger delivery-receipt --message 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --status failed --status-reason "Carrier rejected" --error-code E30007',
      'svc sandbox trigger delivery-receipt --message 3f2504e0-4f89-11d3-9a0c-0305e82c3301 --set errorMessage=null --set deliveredAt=\'"2030-01-01T00:00:00Z"\'',
    ],
    exitCodes: [1, 3, [4, 'the message is not yours, or the service is not a sandbox']],
    load: () => import('./trigger-delivery-receipt.js'),
  },
  {
    path: ['sandbox', 'trigger', 'order-status'],
    summary: 'send an OrderStatus webhook for one of your provisioning orders',
    description: "The payload is the order as it is, with your overrides; the stored order does not change.",
    options: [
      { flags: '--order <id>', description: 'the order id' },
      { flags: '--status <status>', description: 'shorthand for --set status=', choices: ORDER_STATUSES },
      setOption,
    ],
    examples: ['svc sandbox trigger order-status --order 1001', 'svc sandbox trigger order-status --order 1001 --status Failed'],
    exitCodes: [1, 3, [4, 'the order is not yours, or the service is not a sandbox']],
    load: () => import('./trigger-order-status.js'),
  },
  {
    path: ['sandbox', 'webhooks', 'list'],
    summary: 'webhook attempts to your tenants, oldest first (the last 1,000)',
    examples: ['svc sandbox webhooks list', 'svc sandbox webhooks list --json | jq \'.[] | select(.status != 200)\''],
    paged: true,
    exitCodes: [1, 3, [4, 'the service is not a sandbox']],
    load: () => import('./webhooks-list.js'),
  },
  {
    path: ['sandbox', 'webhooks', 'failed'],
    summary: 'events that exhausted their 24 h retry window (the failure queue)',
    examples: ['svc sandbox webhooks failed', 'svc sandbox webhooks failed --json'],
    exitCodes: [1, 3, [4, 'the service is not a sandbox']],
    load: () => import('./webhooks-failed.js'),
  },
  {
    path: ['sandbox', 'webhooks', 'replay'],
    summary: 'send a failed event again: same delivery id, fresh retry schedule',
    args: [{ name: 'deliveryId', description: 'the delivery id of a failed event', required: true }],
    examples: ['svc sandbox webhooks replay dlv_0123456789abcdef01234567'],
    exitCodes: [1, 3, [4, 'no failed event has that id, or the service is not a sandbox']],
    load: () => import('./webhooks-replay.js'),
  },
  {
    path: ['sandbox', 'openapi'],
    summary: "print the sandbox's OpenAPI 3.1 document (also at GET /api/v1/openapi.json)",
    description: 'Its server is --base-url when given, else the default sandbox (http://127.0.0.1:4010/api/v1).',
    examples: ['svc sandbox openapi > openapi.json', 'svc sandbox openapi --base-url http://127.0.0.1:4011'],
    exitCodes: [],
    load: () => import('./openapi.js'),
  },
]);
