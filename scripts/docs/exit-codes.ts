import { ExitCode } from '../../src/errors.js';
import type { CommandSpec } from '../../src/commands/spec.js';

// What each exit code means, as scripts rely on it. src/errors.ts maps errors to these codes; a
// code added there without a line here stops the generator.

export interface ExitCodeRow {
  code: number;
  meaning: string;
}

export const EXIT_CODES: readonly ExitCodeRow[] = [
  { code: 0, meaning: 'success' },
  { code: 1, meaning: 'the request failed: a server error, a network error or an answer the command did not expect' },
  { code: 2, meaning: 'nothing was done: a usage or validation error found before any request was sent, or a declined confirmation' },
  { code: 3, meaning: 'authentication or permission failed (401, 403), or there are no credentials' },
  { code: 4, meaning: 'not found (404)' },
  { code: 5, meaning: 'a wait timed out (`--wait`, `order watch`, `message watch`), or the order ended in a failed state' },
  { code: 6, meaning: 'partial failure: some recipients of a send failed, the others succeeded' },
  { code: 7, meaning: 'the command worked and found differences (`diff --exit-code`), or a receiver failed a required check (`webhook prove`)' },
  { code: 129, meaning: 'hung up (SIGHUP), handled as Ctrl-C' },
  { code: 130, meaning: 'interrupted (Ctrl-C, SIGINT); what was already done is recorded, as in the send journal' },
  { code: 143, meaning: 'terminated (SIGTERM), handled as Ctrl-C' },
];

/** Codes every command can end with, whatever it does. */
export const COMMON_EXIT_CODES: readonly number[] = [ExitCode.Ok, ExitCode.Usage, ExitCode.HungUp, ExitCode.Interrupted, ExitCode.Terminated];

const known = new Map(EXIT_CODES.map((row) => [row.code, row]));

/** Fails when src/errors.ts has a code this table does not explain. */
export function checkExitCodeTable(): void {
  const missing = Object.entries(ExitCode).filter(([, code]) => !known.has(code));
  if (missing.length > 0) throw new Error(`docs: exit codes without a meaning in scripts/docs/exit-codes.ts: ${missing.map(([name, code]) => `${name} (${code})`).join(', ')}`);
}

/** The rows that apply to a command: its declared codes and the common ones, or the whole table. */
export function exitCodesOf(spec: Pick<CommandSpec, 'path' | 'exitCodes'>): readonly ExitCodeRow[] {
  if (spec.exitCodes === undefined) return EXIT_CODES;
  const own = new Map<number, string | undefined>(COMMON_EXIT_CODES.map((code) => [code, undefined]));
  for (const entry of spec.exitCodes) {
    const [code, meaning] = typeof entry === 'number' ? [entry, undefined] : entry;
    if (!known.has(code)) throw new Error(`docs: svc ${spec.path.join(' ')} declares exit code ${code}, which scripts/docs/exit-codes.ts does not explain`);
    if (own.has(code) && own.get(code) === undefined && meaning === undefined) throw new Error(`docs: svc ${spec.path.join(' ')} declares exit code ${code} twice, or one every command has`);
    own.set(code, meaning);
  }
  return EXIT_CODES.filter((row) => own.has(row.code)).map((row) => ({ code: row.code, meaning: own.get(row.code) ?? row.meaning }));
}
