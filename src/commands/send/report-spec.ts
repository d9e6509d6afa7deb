import { defineCommands } from '../spec.js';

export const sendReportCommands = defineCommands([
  {
    path: ['send', 'report'],
    summary: 'what happened to a bulk send: journal outcomes per shard, then delivery statuses from the service',
    description: [
      'Reads the journals of svc send (one per shard of a --shard run, or one): recipients accepted,',
      'rejected, unknown (maybe sent) and not yet sent, per journal and in total, and who is still owed.',
      'Then reads each accepted message (GET /messages/{id}, 8 at a time, reads retried) and shows the',
      'funnel (delivered, sent, sending, queued, failed, unknown), failure reasons with counts, and the',
      'time from send to delivery (p50, p95, max). Final statuses are cached beside each journal',
      '(JOURNAL.statuses.ndjson), so a second report reads only what was still moving.',
      '--watch reads again every 2 s until every message is delivered or failed, or --timeout (exit 5).',
      '--timeout bounds the reads with or without --watch: at the deadline the reads in flight are cut',
      'off and the report, as far as it got, ends with exit 5. Without --watch, statuses that could not',
      'be read (network or server errors) make the report incomplete: exit 1.',
      '--failed-to writes the rejected and failed recipients as a file svc send --to-file takes; with',
      '--to-file (the recipients file of the send) it keeps their template columns; --to-file also',
      'names the recipients not yet sent among those still owed (with --exclude-file, the exclude list the',
      'send was given, also for a send that had one).',
      'Exit 0 when the report is complete: failed messages are reported, not an error.',
    ].join('\n'),
    options: [
      { flags: '--journal <file...>', description: 'a journal of svc send (repeatable: one per shard)', repeatable: true, complete: 'file' },
      { flags: '--watch', description: 'keep reading until every message is delivered or failed' },
      { flags: '--timeout <seconds>', description: 'stop reading statuses after this long (exit 5); with --watch, default 600' },
      { flags: '--failed-to <file>', description: 'write the rejected and failed recipients here, for svc send --to-file', complete: 'file' },
      { flags: '--to-file <file>', description: 'the recipients file of the send: names who is not yet sent, and --failed-to keeps its columns', complete: 'file' },
      { flags: '--exclude-file <file>', description: 'the --exclude-file of the send: with --to-file, names who is not yet sent for a send that had one', complete: 'file' },
    ],
    examples: [
      'svc send report --journal run.jsonl',
      'svc send report --journal shard1.jsonl --journal shard2.jsonl --json',
      'svc send report --journal run.jsonl --watch --timeout 300 --failed-to retry.csv --to-file customers.csv',
      'svc send report --journal run.jsonl -o ndjson | jq -c "select(.status == \\"failed\\")"',
    ],
    load: () => import('./report.js'),
  },
]);
