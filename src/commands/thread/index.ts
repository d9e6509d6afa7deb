import { defineCommands } from '../spec.js';

export const threadCommands = defineCommands([
  {
    path: ['thread'],
    summary: 'one conversation with a number, in time order: sent messages, replies and receipts',
    description: [
      'Built from the event store: what svc send sent to the number, what the listener received from',
      'it, and the delivery receipts of each sent message. --journal adds the sends a send journal',
      'names that the store lacks (by message id; a journal keeps no body). A chat on a terminal;',
      'JSON lines otherwise (one object a line: direction out, in or receipt).',
    ].join('\n'),
    args: [{ name: 'NUMBER', description: 'the other party, in E.164', required: true }],
    options: [
      { flags: '--since <T>', description: 'only from T on (ISO 8601 or a duration ago, 7d)' },
      { flags: '--journal <file>', description: 'also the sends this send journal names (repeatable; shard journals too)', repeatable: true, complete: 'file' },
      { flags: '--store <dir>', description: 'the event store (default: events/ in the user data directory)', complete: 'file' },
    ],
    examples: ['svc thread +14155551001', 'svc thread +14155551001 --since 7d | jq -c .', 'svc thread +14155551001 --journal run.jsonl'],
    paged: true,
    exitCodes: [[1, 'the event store or a --journal could not be read']],
    load: () => import('./thread.js'),
  },
]);
