import { defineCommands, defineOption, type GroupSpec } from '../spec.js';
import { DEFAULT_SECRET_ENV } from '../defaults.js';

export const eventsGroup: GroupSpec = { name: 'events', summary: 'the events the webhook listener kept: list, show, follow, replay, prune' };

const storeOption = defineOption({
  flags: '--store <dir>',
  description: 'the event store (default: events/ in the user data directory, or $SVC_DATA_DIR/events)',
  complete: 'file',
});

const TIMES = 'T is an ISO 8601 date-time (2026-01-31T09:00:00Z) or a duration ago (90s, 15m, 24h, 7d).';

export const eventsCommands = defineCommands([
  {
    path: ['events', 'list'],
    summary: 'list stored events, oldest first, filtered by type, number, message and time',
    description: [
      'An event\'s id is its delivery id (X-Svc-Delivery). --number also finds the receipts of messages',
      `svc send sent to that number (a receipt names only the message). ${TIMES}`,
    ].join('\n'),
    options: [
      { flags: '--type <type>', description: 'MessageReceived, DeliveryReceipt, OrderStatus, OptOut, OptIn or unknown (repeatable)', repeatable: true },
      { flags: '--number <e164>', description: 'events from or to this number, and receipts of messages sent to it' },
      { flags: '--message <id>', description: 'events about this message id (repeatable)', repeatable: true },
      { flags: '--since <T>', description: 'received at or after T' },
      { flags: '--until <T>', description: 'received before T' },
      storeOption,
    ],
    examples: [
      'svc events list --since 24h',
      'svc events list --type DeliveryReceipt --number +14155551001 --json',
      'svc events list --message 0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10 -o ndjson',
    ],
    paged: true,
    exitCodes: [[1, 'the event store could not be read']],
    load: () => import('./list.js'),
  },
  {
    path: ['events', 'show'],
    summary: 'show one stored event: its payload, delivery headers and whether its signature was checked',
    args: [{ name: 'ID', description: 'the delivery id (X-Svc-Delivery)', required: true }],
    options: [storeOption],
    examples: ['svc events show dlv_0123456789abcdef01234567', 'svc events show dlv_0123456789abcdef01234567 --json | jq .payload'],
    paged: true,
    exitCodes: [[1, 'the event store could not be read'], [4, 'no stored event has that id']],
    load: () => import('./show.js'),
  },
  {
    path: ['events', 'tail'],
    summary: 'print the newest stored events; --follow prints new ones as any listener stores them',
    options: [
      { flags: '-n, --lines <n>', description: 'how many of the newest to print first (default 10)' },
      { flags: '-f, --follow', description: 'keep printing events as they are stored, until Ctrl-C' },
      storeOption,
    ],
    examples: ['svc events tail', 'svc events tail --follow --json'],
    exitCodes: [[1, 'the event store could not be read']],
    load: () => import('./tail.js'),
  },
  {
    path: ['events', 'replay'],
    summary: 'send a stored event again: the same bytes, signed again with the given secret',
    description: [
      'The body is sent byte for byte as it was received, with its X-Svc-Event and X-Svc-Delivery',
      'headers and a new X-Svc-Signature under the secret in --secret-env. The target is https://,',
      'or http:// on a loopback host. Exit 0 on a 2xx answer, 1 otherwise. --debug traces the request',
      'and the answer on stderr (never the secret).',
    ].join('\n'),
    args: [{ name: 'ID', description: 'the delivery id (X-Svc-Delivery)', required: true }],
    options: [
      { flags: '--to <url>', description: 'where to POST it (https://, or http:// on loopback)' },
      { flags: '--secret-env <var>', description: `environment variable holding the secret to sign with (default ${DEFAULT_SECRET_ENV})` },
      storeOption,
    ],
    examples: ['svc events replay dlv_0123456789abcdef01234567 --to http://localhost:3000/webhooks --secret-env MY_APP_SECRET'],
    exitCodes: [[1, 'the target answered other than 2xx, or could not be reached'], [4, 'no stored event has that id']],
    load: () => import('./replay.js'),
  },
  {
    path: ['events', 'prune'],
    summary: 'delete stored events and sent records older than a time',
    description: TIMES,
    options: [{ flags: '--before <T>', description: 'delete what was stored before T' }, storeOption],
    examples: ['svc events prune --before 30d', 'svc events prune --before 2026-01-01T00:00:00Z --json'],
    exitCodes: [[1, 'the event store could not be read or written']],
    load: () => import('./prune.js'),
  },
]);

