import type { CommandSpec } from '../spec.js';
import { DEFAULT_CONCURRENCY } from '../defaults.js';


export const sendCommands: CommandSpec[] = [
  {
    path: ['send'],
    summary: 'send an SMS or MMS to one or more numbers, or to every number of a file',
    description: [
      'All --to numbers go in one request (the service makes one message per recipient).',
      '--to-file sends one request per recipient (a text file of numbers, or a CSV file whose',
      '{{column}} placeholders fill the body), --concurrency at a time, with a progress line on a',
      'terminal. --journal is a write-ahead log: each request is recorded before it leaves and its',
      'answer as it arrives; --resume skips whoever the journal shows as accepted, so a run stopped',
      'in any way (Ctrl-C, kill, a crash) can be started again without sending anyone twice.',
      'Recipients whose outcome is unknown (in flight when the run died, or an unreadable answer)',
      'are sent again only by choice: asked on a terminal, else --unknown resend|skip.',
      'Nothing is sent until every number, the body and every media file have been checked.',
    ].join('\n'),
    options: [
      { flags: '--from <number>', description: 'your provisioned number (E.164)' },
      { flags: '--to <number...>', description: 'recipient (E.164); repeat it or list several', repeatable: true },
      { flags: '--to-file <file>', description: 'recipients: one number a line, or a CSV with a header row', complete: 'file' },
      { flags: '--body <text>', description: 'message text (or --body-file, or the text on standard input)' },
      { flags: '--body-file <file>', description: 'read the message text from a file', complete: 'file' },
      { flags: '--media <url>', description: 'https:// link to attach (repeatable, at most 10 media)', repeatable: true },
      { flags: '--media-file <path>', description: 'local file to upload and attach (repeatable)', repeatable: true, complete: 'file' },
      { flags: '--tenant <guid>', description: 'tenant of the number (needed by --media-file)' },
      { flags: '--async', description: 'queue the messages and return at once (advised beyond 100 recipients)' },
      { flags: '--concurrency <n>', description: `requests in flight with --to-file (default ${DEFAULT_CONCURRENCY})` },
      { flags: '--journal <file>', description: 'append one line per request as each answer arrives', complete: 'file' },
      { flags: '--resume', description: 'continue the run of --journal: skip recipients it shows as accepted' },
      { flags: '--unknown <choice>', description: 'with --resume: what to do with recipients whose outcome is unknown', choices: ['resend', 'skip'] },
      { flags: '--dry-run', description: 'check everything and show recipients, encoding and segments; send nothing' },
      { flags: '-y, --yes', description: 'do not ask for confirmation on a terminal' },
    ],
    examples: [
      'svc send --from +15551230000 --to +15557650001 --body "Your code is 1234"',
      'svc send --from +15551230000 --to +15557650001 +15557650002 --body-file notice.txt --media https://example.com/map.png',
      'svc send --from +15551230000 --to-file customers.csv --body "Hi {{name}}, your order {{order}} has shipped" --async --journal run.jsonl',
      'svc send --from +15551230000 --to-file customers.csv --body "Hi {{name}}" --async --journal run.jsonl --resume --unknown skip',
      'some-export | svc send --from +15551230000 --to-file - --body-file notice.txt --async --journal run.jsonl',
      'svc send --from +15551230000 --to +15557650001 --body "Grüße aus Köln ☀" --dry-run',
    ],
    load: () => import('./send.js'),
  },
];
