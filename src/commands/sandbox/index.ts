import type { CommandSpec, GroupSpec } from '../spec.js';
import { SANDBOX_DEFAULT_PORT } from '../../domain/sandbox-defaults.js';
import { MAX_MEDIA_PER_MESSAGE } from '../../domain/media-formats.js';

export const sandboxGroup: GroupSpec = { name: 'sandbox', summary: 'run a local emulator of the service, and simulate incoming messages' };

export const sandboxCommands: CommandSpec[] = [
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
    load: () => import('./start.js'),
  },
  {
    path: ['sandbox', 'inbound'],
    summary: "simulate an incoming message to one of your sandbox numbers (it reaches the tenant's webhook)",
    description: [
      'Calls the sandbox-only endpoint POST /api/v1/sandbox/inbound with the profile in use, which',
      'must point at a sandbox. --to is your active number, --from the sender. The tenant of --to',
      'receives a MessageReceived webhook unless its event filter or missing URI rules it out.',
    ].join('\n'),
    options: [
      { flags: '--to <number>', description: 'your sandbox number that receives the message (E.164)' },
      { flags: '--from <number>', description: 'the sender (E.164)' },
      { flags: '--body <text>', description: 'the message text (may be omitted with --media)' },
      {
        flags: '--media <url>',
        description: `a media link (https://, or http:// on loopback such as the sandbox's own links); up to ${MAX_MEDIA_PER_MESSAGE}, repeatable`,
        repeatable: true,
      },
    ],
    examples: [
      'svc sandbox inbound --to +15551230001 --from +15559870002 --body "hello"',
      'svc sandbox inbound --to +15551230001 --from +15559870002 --body "look" --media https://example.com/cat.png',
      'svc sandbox inbound --to +15551230001 --from +15559870002 --body "hi" --json | jq .deliveryId',
    ],
    load: () => import('./inbound.js'),
  },
];
