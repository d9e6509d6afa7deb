import { defineCommands, type GroupSpec } from '../spec.js';

export const messageGroup: GroupSpec = { name: 'message', summary: 'the status of messages you sent' };

export const messageCommands = defineCommands([
  {
    path: ['message', 'get'],
    summary: 'show a message and its status',
    args: [{ name: 'MESSAGE_ID', description: 'the messageId a send returned', required: true }],
    examples: ['svc message get 0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10', 'svc message get 0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10 --json | jq -r .status'],
    paged: true,
    exitCodes: [1, 3, 4],
    load: () => import('./get.js'),
  },
  {
    path: ['message', 'watch'],
    summary: 'wait until a message is delivered (exit 0) or failed (exit 1); exit 5 on timeout',
    args: [{ name: 'MESSAGE_ID', description: 'the messageId a send returned', required: true }],
    options: [
      { flags: '--interval <seconds>', description: 'first wait between reads; it grows up to 30 s (default 2, or SVC_ORDER_POLL_MS)' },
      { flags: '--timeout <seconds>', description: 'give up after this long (exit 5); default 600' },
    ],
    examples: [
      'svc message watch 0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10',
      'svc message watch 0b0a6c8e-2f7a-4a55-9b1e-3d7c2a1f9e10 --interval 0.5 --timeout 60 --json',
    ],
    exitCodes: [[1, 'the message failed (its errorCode and errorMessage are shown), or a request failed'], 3, 4, [5, '--timeout passed before it was delivered or failed']],
    load: () => import('./watch.js'),
  },
]);
