import { ApiError, AuthError, NotFoundError, type CliError } from '../errors.js';
import { firstLine } from './answers.js';

// The one mapping from an error answer (status, body, Retry-After) to a typed error. Bodies come
// in every shape a server or a proxy in front of it writes: the document's {message, errorCode},
// ASP.NET validation problems, {error}/{detail}/{code}, an HTML error page, plain text, nothing.

/** What the mapping reads of an answer. */
export interface ErrorAnswer {
  status: number;
  /** The parsed JSON body; undefined when it had none or it was not JSON. */
  data: unknown;
  /** The body as text ('' when empty). */
  text: string;
}

export interface ErrorBody {
  message: string;
  title: string | undefined;
  errorCode: string | undefined;
}

const EMPTY = 'empty answer';

/** How a status is told to the user; `where` is `GET /tenants`. Statuses not listed: `failed`. */
const BY_STATUS: Readonly<Record<number, (where: string, body: ErrorBody, extra: ErrorExtra) => CliError>> = {
  401: (_where, body, extra) =>
    new AuthError(`${body.message === EMPTY ? 'The service refused the credentials (HTTP 401)' : body.message}${body.errorCode ? ` (${body.errorCode})` : ''}`, {
      ...extra,
      hints: ['Check the username and password: `svc auth status` shows which ones are in use.'],
    }),
  403: (where, body, extra) => new AuthError(`Permission denied for ${where}: ${body.message}`, extra),
  404: (where, body, extra) => new NotFoundError(`Not found: ${where}${body.message !== EMPTY ? `: ${body.message}` : ''}`, extra),
  400: refused,
  409: refused,
  413: refused,
  415: refused,
  422: refused,
};

interface ErrorExtra {
  status: number;
  title?: string;
  errorCode?: string;
}

function refused(where: string, body: ErrorBody, extra: ErrorExtra): CliError {
  return new ApiError(`The server refused ${where} (${extra.status}): ${body.message}`, extra);
}

function failed(where: string, body: ErrorBody, extra: ErrorExtra): CliError {
  return new ApiError(`${where} failed with HTTP ${extra.status}: ${body.message}`, extra);
}

/** The typed error of an error answer, tolerant of any body. */
export function errorFromResponse(response: ErrorAnswer, method: string, url: URL): CliError {
  const body = readErrorBody(response.data, response.text);
  const extra: ErrorExtra = { status: response.status, ...(body.title ? { title: body.title } : {}), ...(body.errorCode ? { errorCode: body.errorCode } : {}) };
  const where = `${method} ${readablePath(url.pathname)}`;
  return (BY_STATUS[response.status] ?? failed)(where, body, extra);
}

/** The message, title and code of an error body, whatever its shape; `empty answer` when it says nothing. */
export function readErrorBody(data: unknown, text: string): ErrorBody {
  let message = stringField(data, 'message') ?? stringField(data, 'error') ?? stringField(data, 'detail');
  const title = stringField(data, 'title');
  const errorCode = stringField(data, 'errorCode') ?? stringField(data, 'code');
  const errors = typeof data === 'object' && data !== null ? (data as Record<string, unknown>)['errors'] : undefined;
  if (errors !== undefined && typeof errors === 'object' && errors !== null) {
    // ASP.NET-style validation problems: {"errors": {"field": ["reason"]}}.
    const details = Object.entries(errors as Record<string, unknown>)
      .map(([field, reasons]) => `${field}: ${Array.isArray(reasons) ? reasons.join('; ') : String(reasons)}`)
      .join(', ');
    if (details) message = message ? `${message} (${details})` : details;
  }
  if (!message) message = title ?? (text.trim() ? firstLine(text) : EMPTY);
  // The service's words become one line of ours (`error: ...`): a line break in them must not
  // start a line that reads as svc's own.
  return { message: oneLine(message), title: title === undefined ? undefined : oneLine(title), errorCode: errorCode === undefined ? undefined : oneLine(errorCode) };
}

function oneLine(text: string): string {
  return /[\r\n]/.test(text) ? text.replace(/\s*[\r\n]+\s*/g, ' ') : text;
}

function stringField(data: unknown, name: string): string | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const value = (data as Record<string, unknown>)[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A path as the user would read it; a malformed escape (a path the user typed) is shown as sent. */
export function readablePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Retry-After in milliseconds from `now`: seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
