// Typed errors and the exit codes of the contract. `exitCodeFor` and `describeError` are the one
// place where an error becomes an exit code and a message.

export const ExitCode = {
  Ok: 0,
  Failure: 1,
  Usage: 2,
  Auth: 3,
  NotFound: 4,
  Timeout: 5,
  Partial: 6,
  Interrupted: 130,
  HungUp: 129,
  Terminated: 143,
} as const;
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** Base of every error the CLI means to report (anything else is a bug, shown without a stack). */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  /** HTTP status when the error came from an answer. */
  readonly status: number | null;
  readonly title: string | undefined;
  readonly errorCode: string | undefined;
  /** Extra lines of advice shown after the message (never in --json). */
  readonly hints: string[];
  /** An error answer's Retry-After, in ms from when it arrived (a bulk send's throttle pause). */
  retryAfterMs: number | undefined;

  constructor(
    message: string,
    exitCode: ExitCodeValue,
    extra: { status?: number | null; title?: string; errorCode?: string; hints?: string[]; cause?: unknown } = {},
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = new.target.name;
    this.exitCode = exitCode;
    this.status = extra.status ?? null;
    this.title = extra.title;
    this.errorCode = extra.errorCode;
    this.hints = extra.hints ?? [];
  }
}

/** Bad flags, arguments or input files, found before any request was sent (exit 2). */
export class UsageError extends CliError {
  constructor(message: string, hints: string[] = []) {
    super(message, ExitCode.Usage, { hints });
  }
}

/** 401 or 403, or credentials that are missing altogether (exit 3). */
export class AuthError extends CliError {
  constructor(message: string, extra: { status?: number | null; title?: string; errorCode?: string; hints?: string[] } = {}) {
    super(message, ExitCode.Auth, extra);
  }
}

export class NotFoundError extends CliError {
  constructor(message: string, extra: { status?: number | null; title?: string; errorCode?: string } = {}) {
    super(message, ExitCode.NotFound, { status: 404, ...extra });
  }
}

/** Any other failed request: server error, network error, unexpected answer (exit 1). */
export class ApiError extends CliError {
  constructor(message: string, extra: { status?: number | null; title?: string; errorCode?: string; cause?: unknown } = {}) {
    super(message, ExitCode.Failure, extra);
  }
}

/** The connection failed or timed out. `sent` tells whether the request may have reached the server. */
export class NetworkError extends ApiError {
  readonly sent: boolean;
  /** Another attempt cannot mend it (an untrusted certificate, a host that does not exist). */
  readonly permanent: boolean;
  constructor(message: string, sent: boolean, cause?: unknown, extra: { permanent?: boolean; hints?: string[] } = {}) {
    super(message, { status: null, cause });
    this.sent = sent;
    this.permanent = extra.permanent ?? false;
    if (extra.hints) this.hints.push(...extra.hints);
  }
}

/**
 * A 1xx/2xx/3xx answer that is not what the endpoint promises: a redirect (never
 * followed), a 204 or empty body where a body is due, an HTML page, JSON of the wrong kind or
 * cut short. The request reached something that answered, so it may have been acted on.
 */
export class UnexpectedAnswerError extends ApiError {
  /** Where a redirect pointed, with credentials and query removed; undefined otherwise. */
  readonly location: string | undefined;
  constructor(message: string, extra: { status: number; location?: string | undefined; hints?: string[] }) {
    super(message, { status: extra.status });
    this.location = extra.location;
    if (extra.hints) this.hints.push(...extra.hints);
  }
}

/** A wait ran out of time, or an order ended in a failed state (exit 5). */
export class WaitError extends CliError {
  constructor(message: string) {
    super(message, ExitCode.Timeout);
  }
}

/** The signals that stop a command the way Ctrl-C does, and their exit codes (128 + the signal's number). */
export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';
export const STOP_SIGNAL_EXIT: Readonly<Record<StopSignal, ExitCodeValue>> = {
  SIGINT: ExitCode.Interrupted,
  SIGTERM: ExitCode.Terminated,
  SIGHUP: ExitCode.HungUp,
};

/** Ctrl-C (exit 130), or SIGTERM (143) or SIGHUP (129), which are handled the same way. */
export class InterruptedError extends CliError {
  readonly signal: StopSignal;
  constructor(message = 'Interrupted', signal: StopSignal = 'SIGINT') {
    super(message, STOP_SIGNAL_EXIT[signal]);
    this.signal = signal;
  }
}

/** The exit code of a command stopped by `signal` (its abort reason names the signal; 130 otherwise). */
export function stopExitCode(signal: AbortSignal): ExitCodeValue {
  return signal.reason instanceof InterruptedError ? signal.reason.exitCode : ExitCode.Interrupted;
}

export function exitCodeFor(error: unknown): ExitCodeValue {
  if (error instanceof CliError) return error.exitCode;
  return ExitCode.Failure;
}

export interface ErrorDescription {
  status: number | null;
  message: string;
  title: string | null;
  errorCode: string | null;
  hints: string[];
}

export function describeError(error: unknown): ErrorDescription {
  if (error instanceof CliError) {
    return {
      status: error.status,
      message: error.message,
      title: error.title ?? null,
      errorCode: error.errorCode ?? null,
      hints: error.hints,
    };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { status: null, message: `Unexpected error: ${message}`, title: null, errorCode: null, hints: [] };
}
