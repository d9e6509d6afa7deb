import { defineCommands, type GroupSpec } from '../spec.js';

export const orderGroup: GroupSpec = { name: 'order', summary: 'provisioning orders: read one, or follow it to its end' };

export const orderCommands = defineCommands([
  {
    path: ['order', 'get'],
    summary: 'show a provisioning order and the status of each of its numbers',
    args: [{ name: 'ORDER_ID', description: 'the orderId a provision or unprovision answered with', required: true }],
    examples: ['svc order get 1042', 'svc order get 1042 --json | jq -r .status'],
    paged: true,
    exitCodes: [1, 3, 4],
    load: () => import('./get.js'),
  },
  {
    path: ['order', 'watch'],
    summary: 'follow an order until it completes or fails (exit 5 when it fails or --timeout passes)',
    description:
      'Polls with backoff: from --interval (or SVC_ORDER_POLL_MS, else 2 s) growing 1.5x a poll up to 30 s,\n' +
      'so that a five-minute order costs a couple of dozen requests. On a terminal a spinner shows the\n' +
      'order and each number; otherwise one line per change goes to stderr. The final table (or, with\n' +
      '--json, the order as it ended) goes to stdout. Here --timeout is the wait limit, not the per-request one.',
    args: [{ name: 'ORDER_ID', description: 'the orderId a provision or unprovision answered with', required: true }],
    options: [
      { flags: '--interval <seconds>', description: 'first poll interval in seconds (fractions allowed)' },
      { flags: '--timeout <seconds>', description: 'stop waiting after this many seconds (exit 5); default: no limit' },
    ],
    examples: ['svc order watch 1042', 'svc order watch 1042 --timeout 600 --json > order.json || echo "order not completed: $?"'],
    exitCodes: [1, 3, 4, [5, 'the order failed, or --timeout passed']],
    load: () => import('./watch.js'),
  },
]);
