import { CliError, ExitCode, UsageError } from '../errors.js';
import { describeLimit, errorCode, fileProblem } from '../domain/files/reasons.js';

// The one rule for a file that cannot be used, whichever command meets it:
// - a file the user gave us to read (--to-file, --body-file, --media-file, an upload, a JSON or
//   CSV input) that is missing, unreadable, a directory, a device or too large is a usage error
//   (exit 2) before anything is sent: "Cannot read --media-file photo.png: permission denied";
// - a file svc writes while it runs (the journal, the profile store, a snapshot) that cannot be
//   written is a failure (exit 1) naming the file: "Cannot write the journal run.jsonl: the disk
//   is full (ENOSPC)". What was done before it is kept; the caller says how to go on.
// `what` is how the file is known on the command line ("--journal", "--media-file") or a noun
// ("the profile store"); the reasons come from src/domain/files/reasons.ts.

/** A file named on the command line that cannot be used (read, or created before anything is done): exit 2. */
export class FileUsageError extends UsageError {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    message: string,
    hints: string[] = [],
  ) {
    super(message, hints);
  }
}

/** A file svc writes that could not be written: exit 1. */
export class FileWriteError extends CliError {
  constructor(
    readonly path: string,
    readonly code: string | undefined,
    message: string,
    hints: string[] = [],
  ) {
    super(message, ExitCode.Failure, { hints });
  }
}

/** The disk or a limit is full: freeing space and running again mends it. */
const FULL = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

/** "Cannot read WHAT PATH: REASON" (exit 2). Already-worded errors pass through. */
export function cannotRead(what: string, path: string, error: unknown): CliError {
  if (error instanceof CliError) return error;
  return new FileUsageError(path, errorCode(error), `Cannot read ${what} ${path}: ${fileProblem(error)}`);
}

/** Why a write failed: for a file being created, a missing path means a missing directory. */
function writeProblem(error: unknown): string {
  return errorCode(error) === 'ENOENT' ? 'its directory does not exist' : fileProblem(error);
}

function writeHints(error: unknown, hints: string[]): string[] {
  const code = errorCode(error);
  if (code === undefined || !FULL.has(code)) return hints;
  // The caller's hints say how to go on when there are any.
  return [hints.length > 0 ? 'Free some space (or raise the limit).' : 'Free some space (or raise the limit) and run the command again.', ...hints];
}

/** "Cannot write WHAT PATH: REASON" (exit 1), with `hints` after the reason's own. */
export function cannotWrite(what: string, path: string, error: unknown, hints: string[] = []): CliError {
  if (error instanceof CliError) return error;
  return new FileWriteError(path, errorCode(error), `Cannot write ${what} ${path}: ${writeProblem(error)}`, writeHints(error, hints));
}

/**
 * A file named on the command line for svc to write that cannot be opened before anything is
 * done (a --journal in a directory that does not exist, or one we may not write): exit 2, as
 * any other bad flag value.
 */
export function cannotCreate(what: string, path: string, error: unknown, hints: string[] = []): CliError {
  if (error instanceof CliError) return error;
  return new FileUsageError(path, errorCode(error), `Cannot write ${what} ${path}: ${writeProblem(error)}`, writeHints(error, hints));
}

/** An input past its size limit (exit 2). */
export function tooLarge(what: string, path: string, limitBytes: number): FileUsageError {
  return new FileUsageError(path, 'EFBIG', `Cannot read ${what} ${path}: larger than the limit of ${describeLimit(limitBytes)}`);
}

/** An input that is a directory, a device or a socket where a file was wanted (exit 2). */
export function notAFile(what: string, path: string, kind: string): FileUsageError {
  return new FileUsageError(path, undefined, `Cannot read ${what} ${path}: it is ${kind}, not a file`);
}
