import { PassThrough, Readable } from 'node:stream';
import { main } from '../../src/cli.js';

// Commands that run until Ctrl-C (`sandbox start`, `webhook listen`): tests drive main()
// in-process with live streams, read the address from the banner, use the server, then abort as
// Ctrl-C would.

export class LiveCapture extends PassThrough {
  text = '';
  private waiters: Array<() => void> = [];
  constructor(readonly isTTY: boolean) {
    super();
    this.on('data', (chunk: Buffer) => {
      this.text += chunk.toString('utf8');
      for (const wake of this.waiters.splice(0)) wake();
    });
  }
  /** Resolves once the text matches, or with null once the command has ended without it. */
  async waitFor(pattern: RegExp, ended: Promise<unknown>): Promise<RegExpExecArray | null> {
    let stop = false;
    void ended.then(() => {
      stop = true;
      for (const wake of this.waiters.splice(0)) wake();
    });
    for (;;) {
      const match = pattern.exec(this.text);
      if (match !== null || stop) return match;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }
}

export interface RunningCommand {
  stdout: LiveCapture;
  stderr: LiveCapture;
  done: Promise<number>;
  /** Ctrl-C, then the exit code. */
  interrupt(): Promise<number>;
}

export function startCommand(argv: string[], env: Record<string, string | undefined> = {}, tty = false): RunningCommand {
  const stdout = new LiveCapture(tty);
  const stderr = new LiveCapture(tty);
  const controller = new AbortController();
  const done = main(argv, {
    stdin: Readable.from([]),
    stdout,
    stderr,
    env,
    tty: { stdin: false, stdout: tty, stderr: tty, columns: 120 },
    signal: controller.signal,
  });
  return {
    stdout,
    stderr,
    done,
    interrupt: () => {
      controller.abort();
      return done;
    },
  };
}

export function basicAuth(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`;
}
