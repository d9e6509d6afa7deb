import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { main } from '../../src/cli.js';
import type { Clock } from '../../src/clock.js';
import type { Prompter } from '../../src/context.js';
import type { SecretStore } from '../../src/config/secrets.js';

// Runs the CLI in-process with injected streams: what a command printed, and its exit code.

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** Standard input: text (sent as UTF-8) or bytes as they are. */
  stdin?: string | Buffer;
  /** Pretend every stream is a terminal (or choose per stream). */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  dispatcher?: Dispatcher;
  prompter?: Prompter;
  secretStore?: SecretStore;
  clock?: Clock;
  signal?: AbortSignal;
  columns?: number;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

class Capture extends PassThrough {
  text = '';
  isTTY: boolean;
  columns: number;
  constructor(isTTY: boolean, columns: number) {
    super();
    this.isTTY = isTTY;
    this.columns = columns;
    this.on('data', (chunk: Buffer) => {
      this.text += chunk.toString('utf8');
    });
  }
}

export async function runCli(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const tty = typeof options.tty === 'boolean' ? { stdin: options.tty, stdout: options.tty, stderr: options.tty } : (options.tty ?? {});
  const columns = options.columns ?? 120;
  const stdout = new Capture(tty.stdout ?? false, columns);
  const stderr = new Capture(tty.stderr ?? false, columns);
  const stdin = Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]);
  const code = await main(argv, {
    stdin,
    stdout,
    stderr,
    env: { SVC_CONFIG_DIR: sharedConfigDir(), SVC_DATA_DIR: sharedConfigDir(), ...options.env },
    tty: { stdin: tty.stdin ?? false, stdout: tty.stdout ?? false, stderr: tty.stderr ?? false, columns },
    ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
    ...(options.prompter ? { prompter: options.prompter } : {}),
    ...(options.secretStore ? { secretStore: options.secretStore } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

let defaultDir: string | undefined;
/** A config dir that holds no profile, so that no test reads the developer's own store. */
function sharedConfigDir(): string {
  defaultDir ??= mkdtempSync(join(tmpdir(), 'svc-test-empty-'));
  return defaultDir;
}

/** A fresh, empty config directory for one test; removed by the returned cleanup. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-config-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A clock whose sleeps return at once and advance its time, recording each wait. Its timeouts
 * abort when its time reaches them, by a sleep or by advance(): never in real time. `jump(ms)`
 * steps the wall clock alone (as NTP or a user may), leaving the monotonic clock where it is.
 */
export function fakeClock(start = Date.parse('2026-01-01T00:00:00Z')): Clock & { sleeps: number[]; time: number; elapsed: number; advance(ms: number): void; jump(ms: number): void } {
  const timers: { at: number; controller: AbortController }[] = [];
  const fireDue = (): void => {
    for (const timer of timers.filter((t) => t.at <= clock.elapsed)) {
      timers.splice(timers.indexOf(timer), 1);
      timer.controller.abort(new DOMException('The operation timed out.', 'TimeoutError'));
    }
  };
  const clock = {
    time: start,
    /** The monotonic reading: moved by sleeps and advance(), never by jump(); equal to the wall time until a jump. */
    elapsed: start,
    sleeps: [] as number[],
    now: () => clock.time,
    monotonic: () => clock.elapsed,
    sleep: async (ms: number, signal?: AbortSignal) => {
      if (signal?.aborted) throw new Error('aborted');
      clock.sleeps.push(ms);
      clock.time += ms;
      clock.elapsed += ms;
      fireDue();
    },
    timeout: (ms: number) => {
      const controller = new AbortController();
      timers.push({ at: clock.elapsed + ms, controller });
      return controller.signal;
    },
    advance: (ms: number) => {
      clock.time += ms;
      clock.elapsed += ms;
      fireDue();
    },
    jump: (ms: number) => {
      clock.time += ms;
    },
  };
  return clock;
}

/**
 * A prompter that answers from a script and fails the test on an unexpected question. With
 * `select`, it also answers lists (a value not among the choices fails); without, a list is
 * asked as typed input, as with a prompter that cannot show one.
 */
export function scriptedPrompter(
  answers: Record<string, string | boolean>,
  options: { select?: boolean } = {},
): Prompter & { asked: string[]; preselected: Record<string, string | undefined>; defaults: Record<string, string | undefined> } {
  const asked: string[] = [];
  // The default each typed question offered, by its message.
  const defaults: Record<string, string | undefined> = {};
  // The choice each list question started on, by its message: what a terminal user would see chosen.
  const preselected: Record<string, string | undefined> = {};
  const answer = (message: string): string | boolean => {
    asked.push(message);
    const key = Object.keys(answers).find((k) => message.toLowerCase().includes(k.toLowerCase()));
    if (key === undefined) throw new Error(`unexpected prompt: ${message}`);
    return answers[key]!;
  };
  return {
    asked,
    preselected,
    defaults,
    // An empty answer is Enter on the question: its default, as on a terminal.
    input: async (message, inputOptions) => {
      defaults[message] = inputOptions?.default;
      const typed = String(answer(message));
      return typed === '' && inputOptions?.default !== undefined ? inputOptions.default : typed;
    },
    password: async (message) => String(answer(message)),
    confirm: async (message) => answer(message) === true,
    ...(options.select
      ? {
          select: async (message: string, choices: readonly { value: string }[], selectOptions: { default?: string } = {}) => {
            preselected[message] = selectOptions.default;
            const chosen = String(answer(message));
            if (!choices.some((c) => c.value === chosen)) throw new Error(`"${chosen}" is not among ${choices.map((c) => c.value).join(', ')}`);
            return chosen;
          },
        }
      : {}),
  };
}
