// `svc demo`: a sandbox and a webhook listener in this process, then the main job done with the
// real commands, each run through main() exactly as typed (and printed) so that the tour shows
// what a person would see. The user's own profiles are never touched: the commands get a
// temporary SVC_CONFIG_DIR.

import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { CliError, ExitCode, InterruptedError } from '../errors.js';
import { startSandbox, type HttpExchange, type RunningSandbox } from '../sandbox/index.js';
import { formatEventLine } from '../webhooks/format.js';
import { controlChannel } from '../output/io.js';
import type { Palette } from '../output/palette.js';
import { startWebhookListener, type AcceptedWebhookEvent, type WebhookListener } from '../webhooks/listener.js';
import { drawDemoPng } from './png.js';

export const DEMO_SECRET_ENV = 'SVC_DEMO_WEBHOOK_SECRET';
/** Not in the sandbox's failing range (+1555010xxxx). */
export const DEMO_NUMBER = '+15555550100';
export const DEMO_CONTACT = '+15551234567';
/** Long enough to watch, short enough not to bore. */
export const DEMO_ORDER_DELAY_MS = 1500;
export const DEMO_MESSAGE_STEP_MS = 300;
/** How long the tour waits for a webhook before it calls the step failed (real time). */
const WEBHOOK_WAIT_MS = 20_000;

/** What one command of the tour gets: main()'s streams and settings (src/cli.ts, MainDeps). */
export interface TourCommandDeps {
  stdin: Readable;
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  env: Record<string, string>;
  tty: { stdin: boolean; stdout: boolean; stderr: boolean; columns: number };
  signal: AbortSignal;
}

/** Runs one svc command as typed and returns its exit code: main(), handed in by the command. */
export type RunCommand = (argv: readonly string[], deps: TourCommandDeps) => Promise<number>;

export interface TourOptions {
  /** The CLI's main(); the tour sits below the entry point, so it is given it rather than importing it. */
  runCommand: RunCommand;
  /** The transcript: every step, the commands' output (stdout and stderr, as a terminal shows them), the webhooks. */
  out: Writable;
  isTTY: boolean;
  columns: number;
  color: boolean;
  palette: Palette;
  signal: AbortSignal;
  /** Divides the sandbox's delays (tests use a large value); 1 is the human pace. */
  timeScale: number;
  /** The number to provision (default DEMO_NUMBER); tests pick a failing one to see a step fail. */
  number?: string;
  /** Sees the sandbox's every request and answer (tests validate them against its OpenAPI document). */
  observe?: (exchange: HttpExchange) => void;
}

/** A step that did not work: the message names it. */
export class TourStepError extends CliError {
  constructor(
    readonly step: string,
    reason: string,
  ) {
    super(`demo step "${step}" failed: ${reason}`, ExitCode.Failure);
  }
}

/** Writes what a command prints into the transcript, claiming the terminal's traits. */
class TranscriptStream extends Writable {
  text = '';
  constructor(
    private readonly target: Writable,
    readonly isTTY: boolean,
    readonly columns: number,
  ) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.target.write(chunk);
    this.text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    callback();
  }
}

/** Shell quoting for the printed command lines, readable for the usual cases. */
export function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (!/['\\]/.test(arg)) return `'${arg}'`;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

const ANSI_SEQUENCE = /\u001b\[[0-9;]*m/g;

/** The message id in what `svc send` printed (a table row or key/value view, coloured or not). */
export function messageIdIn(output: string): string | undefined {
  // A key/value view (`messageId  ID`) or a piped send's row (`TO<tab>accepted<tab>ID<tab>STATUS`).
  return /(?:messageId\W+|\taccepted\t)([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/i.exec(output.replace(ANSI_SEQUENCE, ''))?.[1];
}

interface Waiter {
  matches: (event: AcceptedWebhookEvent) => boolean;
  wake: () => void;
}

const kindIs = (kind: string, status?: string) => (event: AcceptedWebhookEvent): boolean =>
  !event.duplicate && event.kind === kind && (status === undefined || event.summary.status === status);

/** What the tour has going: its transcript, the commands' environment, the webhooks received. */
class TourSession {
  readonly events: AcceptedWebhookEvent[] = [];
  private readonly waiters: Waiter[] = [];
  /** A terminal that reports no width (a pty of size 0) must not make tables divide by zero. */
  readonly columns: number;
  /** The commands' environment: the tour's own config directory and event store, not the user's. */
  readonly env: Record<string, string>;
  sandbox: RunningSandbox | undefined;
  listener: WebhookListener | undefined;

  constructor(
    readonly options: TourOptions,
    readonly workDir: string,
    readonly secret: string,
  ) {
    this.columns = options.columns > 0 ? options.columns : 80;
    this.env = { SVC_CONFIG_DIR: join(workDir, 'config'), SVC_DATA_DIR: join(workDir, 'data'), [DEMO_SECRET_ENV]: secret };
    if (!options.color) this.env['NO_COLOR'] = '1';
  }

  say(line = ''): void {
    this.options.out.write(`${line}\n`);
  }

  heading(number: number, title: string): void {
    this.say();
    this.say(this.options.palette.bold(this.options.palette.cyan(`${number}. ${title}`)));
  }

  /** Runs one command through main(), printed first as typed; a non-zero exit fails the step. Returns its stdout. */
  async svc(step: string, args: string[]): Promise<string> {
    const { palette, signal } = this.options;
    this.say(`${palette.dim('$')} ${palette.bold(['svc', ...args].map(shellQuote).join(' '))}`);
    // What the commands print passed their own output boundary (made terminal-safe, their
    // colour kept): it goes to the tour's terminal as it is.
    const transcript = controlChannel(this.options.out);
    const stdout = new TranscriptStream(transcript, this.options.isTTY, this.columns);
    // stderr is not a terminal for the commands: a spinner redrawing its line would erase the
    // listener's lines printed in between, while plain progress lines read well in a transcript.
    const code = await this.options.runCommand(args, {
      stdin: Readable.from([]),
      stdout,
      stderr: new TranscriptStream(transcript, false, this.columns),
      env: this.env,
      tty: { stdin: false, stdout: this.options.isTTY, stderr: false, columns: this.columns },
      signal,
    });
    if (signal.aborted) throw new ReportedInterruption();
    if (code !== 0) throw new TourStepError(step, `\`svc ${args[0] ?? ''} ${args[1] ?? ''}\` exited with ${code} (its error is above)`);
    return stdout.text;
  }

  /** A webhook the listener accepted: shown in the transcript, and woken whoever waits for it. */
  received(event: AcceptedWebhookEvent): void {
    this.events.push(event);
    if (!event.duplicate) this.say(`${this.options.palette.cyan('  [listener]')} ${formatEventLine(event, { palette: this.options.palette })}`);
    for (const waiter of [...this.waiters]) waiter.wake();
  }

  /** Resolves once the listener has received `count` events that match, or fails the step. */
  async waitForEvents(step: string, what: string, count: number, matches: (event: AcceptedWebhookEvent) => boolean): Promise<void> {
    const have = (): number => this.events.filter(matches).length;
    if (have() >= count) return;
    const { signal } = this.options;
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    try {
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = {
          matches,
          wake: () => {
            if (have() >= count) resolve();
          },
        };
        this.waiters.push(waiter);
        timer = setTimeout(() => reject(new TourStepError(step, `${what} did not reach the listener within ${WEBHOOK_WAIT_MS / 1000} s`)), WEBHOOK_WAIT_MS);
        onAbort = () => reject(new InterruptedError());
        signal.addEventListener('abort', onAbort, { once: true });
        waiter.wake();
      });
    } finally {
      clearTimeout(timer);
      if (onAbort) signal.removeEventListener('abort', onAbort);
      this.waiters.splice(0, this.waiters.length, ...this.waiters.filter((w) => w.matches !== matches));
    }
  }
}

export async function runTour(options: TourOptions): Promise<void> {
  const workDir = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  // The process may end before `finally` below has run (a second Ctrl-C exits at once, and a
  // library's own SIGINT hook can count as that second one): the directory goes with it then too.
  const removeWorkDir = (): void => rmSync(workDir, { recursive: true, force: true });
  process.once('exit', removeWorkDir);
  const tour = new TourSession(options, workDir, randomBytes(24).toString('base64url'));
  try {
    tour.say(options.palette.bold('A tour of svc against a local sandbox: nothing here leaves this machine.'));
    await startServices(tour);
    await provisionAndMessage(tour, tour.listener!.url);
    tour.heading(9, 'Shut down');
  } finally {
    try {
      await tour.listener?.close();
      await tour.sandbox?.close();
    } finally {
      await rm(workDir, { recursive: true, force: true });
      process.off('exit', removeWorkDir);
    }
  }
  const received = tour.events.filter((e) => !e.duplicate).length;
  tour.say(`Listener and sandbox stopped; ${received} webhook events were received and verified.`);
  sayWhatNext(tour);
}

/** Steps 1 and 2: the sandbox and a listener that checks signatures, both in this process. */
async function startServices(tour: TourSession): Promise<void> {
  const { options } = tour;
  const { palette } = options;
  tour.heading(1, 'Start a local sandbox of the service');
  tour.sandbox = await startSandbox({
    port: 0,
    orderDelayMs: DEMO_ORDER_DELAY_MS,
    messageStepMs: DEMO_MESSAGE_STEP_MS,
    timeScale: options.timeScale,
    ...(options.observe ? { observe: options.observe } : {}),
  });
  tour.say(`Sandbox running at ${tour.sandbox.url}, account sandbox@example.com / sandbox.`);
  tour.say(palette.dim('(`svc sandbox start` runs the same server on its own; here it lives inside the demo.)'));

  tour.heading(2, 'Start a webhook listener that checks signatures');
  tour.listener = await startWebhookListener(
    { port: 0, secrets: [tour.secret] },
    {
      accepted: (event) => tour.received(event),
      rejected(rejection) {
        tour.say(`${palette.red('  [listener] refused')} ${rejection.status} ${rejection.reason}`);
      },
    },
  );
  tour.say(`Listening on ${tour.listener.url}; the tenant's webhook secret is in $${DEMO_SECRET_ENV}.`);
  tour.say(palette.dim('(`svc webhook listen` does the same in a terminal of its own.)'));
}

/** Steps 3 to 8: the main job, with the real commands: log in, a tenant, a number, an SMS, an MMS, a reply. */
async function provisionAndMessage(tour: TourSession, listenerUrl: string): Promise<void> {
  const ourNumber = tour.options.number ?? DEMO_NUMBER;
  const tenantId = randomUUID();
  tour.heading(3, 'Log in: a "sandbox" profile (in a temporary config directory, your own profiles are untouched)');
  await tour.svc('log in', ['auth', 'login', '--sandbox', '--base-url', tour.sandbox!.url]);

  tour.heading(4, 'Create a tenant whose webhooks go to the listener');
  await tour.svc('create a tenant', [
    'tenant', 'create',
    '--tenant-id', tenantId,
    '--domain', 'demo.example.com',
    '--webhook-primary-uri', listenerUrl,
    '--webhook-secret-env', DEMO_SECRET_ENV,
    '--webhook-event-type', 'All',
  ]);

  tour.heading(5, 'Provision a number and watch its order');
  await tour.svc('provision a number', [
    'number', 'provision', ourNumber,
    '--tenant', tenantId,
    '--type', 'SMSMMS',
    '--class', 'P2P',
    '--wait',
    '--interval', '0.25',
  ]);
  await tour.waitForEvents('provision a number', 'the order-status webhook (Completed)', 1, kindIs('OrderStatus', 'Completed'));

  tour.heading(6, 'Send an SMS; its delivery receipts arrive at the listener');
  await tour.svc('send an SMS', ['send', '--from', ourNumber, '--to', DEMO_CONTACT, '--body', 'Hello from svc! This SMS went through the local sandbox.']);
  await tour.waitForEvents('send an SMS', 'the "delivered" receipt of the SMS', 1, kindIs('DeliveryReceipt', 'delivered'));

  tour.heading(7, 'Send an MMS with an image uploaded from a file');
  const image = join(tour.workDir, 'svc-demo.png');
  await writeFile(image, drawDemoPng());
  const sent = await tour.svc('send an MMS', ['send', '--from', ourNumber, '--to', DEMO_CONTACT, '--body', 'And a picture', '--media-file', image, '--tenant', tenantId]);
  await tour.waitForEvents('send an MMS', 'the "delivered" receipt of the MMS', 2, kindIs('DeliveryReceipt', 'delivered'));
  const messageId = messageIdIn(sent);
  if (messageId === undefined) throw new TourStepError('send an MMS', 'its output shows no messageId');
  tour.say(tour.options.palette.dim('The message as the service keeps it: delivered, with the link of the uploaded image.'));
  await tour.svc('read the MMS back', ['message', 'get', messageId]);

  tour.heading(8, 'Simulate a reply coming in; it reaches the listener as a MessageReceived event');
  await tour.svc('simulate an inbound message', ['sandbox', 'inbound', '--to', ourNumber, '--from', DEMO_CONTACT, '--body', 'Hi! Got your picture.']);
  await tour.waitForEvents('simulate an inbound message', 'the MessageReceived webhook', 1, kindIs('MessageReceived'));
}

function sayWhatNext(tour: TourSession): void {
  const { palette } = tour.options;
  tour.say();
  tour.say(palette.bold('What next'));
  for (const [command, why] of [
    ['svc sandbox start', 'a sandbox that keeps running (add --state sandbox.json to keep its data)'],
    ['svc auth login --sandbox', 'a "sandbox" profile for it'],
    ['svc webhook listen', 'receive your tenants\' webhooks in another terminal'],
    ['svc tenant create --help', 'and every other command: flags and examples'],
    ['svc send --dry-run --to-file contacts.csv ...', 'check a bulk send before sending it'],
    ['svc auth login', 'when you have an account on the real service'],
  ] as const) {
    tour.say(`  ${command.padEnd(46)} ${palette.dim(why)}`);
  }
}

/** Ctrl-C during a step: the step's own command has already said "Interrupted". */
export class ReportedInterruption extends InterruptedError {}
