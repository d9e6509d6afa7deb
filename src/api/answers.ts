import { UnexpectedAnswerError } from '../errors.js';
import type { AnswerKind } from '../domain/api/endpoints.js';

// Whether an answer is what its endpoint promises (the contract, domain/api/endpoints.ts, says
// which kind each endpoint's good answer is). The HTTP layer checks every answer before handing it
// on; anything else is an UnexpectedAnswerError (exit 1), never an empty list or object printed
// as if all were well.

export type { AnswerKind } from '../domain/api/endpoints.js';

/** What checkAnswer needs to know of an answer. */
export interface AnswerShape {
  status: number;
  headers: Record<string, string>;
  text: string;
  data: unknown;
  /** The body looked like JSON (or said so) and did not parse: cut short or damaged. Absent: it did not. */
  invalidJson?: boolean;
}

const BASE_URL_HINT = 'The base URL is probably wrong: check --base-url, SVC_BASE_URL or the profile (`svc auth status`).';

/**
 * Throws an UnexpectedAnswerError unless the answer is what `kind` promises. `where` names the
 * request (`POST /messages`); as a function, it is asked for only when there is an error to tell.
 */
export function checkAnswer(answer: AnswerShape, kind: AnswerKind, where: string | (() => string), url: URL, acceptedStatus = false): void {
  const { status, invalidJson = false } = answer;
  // The usual good answer, first and without a copy of its text: a 2xx JSON object where one is due.
  if (!invalidJson && status >= 200 && status < 300 && kind !== 'list' && typeof answer.data === 'object' && answer.data !== null && !Array.isArray(answer.data)) return;
  return checkUnusualAnswer(answer, invalidJson, kind, typeof where === 'string' ? where : where(), url, acceptedStatus);
}

function checkUnusualAnswer(answer: AnswerShape, invalidJson: boolean, kind: AnswerKind, where: string, url: URL, acceptedStatus: boolean): void {
  const { status } = answer;
  // An error status the call takes as an answer (a health check's 503) is judged by its body only.
  if (acceptedStatus) {
    /* the body is checked below */
  } else if (status >= 300 && status < 400) {
    const location = safeLocation(answer.headers['location'], url);
    throw new UnexpectedAnswerError(
      `Unexpected answer for ${where}: HTTP ${status} redirect${location ? ` to ${location}` : ' without a Location'}, not followed; the base URL is probably wrong`,
      { status, location, hints: [BASE_URL_HINT] },
    );
  } else if (status < 200 || status >= 300) {
    throw new UnexpectedAnswerError(`Unexpected answer for ${where}: HTTP ${status}`, { status });
  }
  if (invalidJson) {
    throw new UnexpectedAnswerError(
      `Unexpected answer for ${where}: HTTP ${status} with a body that is not valid JSON (cut short or damaged): ${excerpt(answer.text)}`,
      { status },
    );
  }
  if (kind === 'any') return;
  const empty = answer.text.trim() === '';
  if (empty) {
    if (kind === 'object-or-empty') return;
    throw new UnexpectedAnswerError(`Unexpected answer for ${where}: HTTP ${status} with an empty body, where ${describeKind(kind)} is due`, { status });
  }
  if (answer.data === undefined) {
    const html = /^\s*</.test(answer.text) || (answer.headers['content-type'] ?? '').includes('html');
    throw new UnexpectedAnswerError(
      `Unexpected answer for ${where}: HTTP ${status} with "${firstLine(answer.text)}", not JSON${html ? ' (an HTML page)' : ''}, where ${describeKind(kind)} is due`,
      { status, hints: html ? [BASE_URL_HINT] : [] },
    );
  }
  if (!matchesKind(answer.data, kind)) {
    throw new UnexpectedAnswerError(
      `Unexpected answer for ${where}: HTTP ${status} with ${jsonKind(answer.data)}, where ${describeKind(kind)} is due`,
      { status },
    );
  }
}

function matchesKind(data: unknown, kind: Exclude<AnswerKind, 'any'>): boolean {
  const isObject = typeof data === 'object' && data !== null && !Array.isArray(data);
  if (kind === 'list') {
    if (Array.isArray(data)) return true;
    return isObject && Object.values(data as Record<string, unknown>).some((v) => Array.isArray(v));
  }
  return isObject;
}

function describeKind(kind: Exclude<AnswerKind, 'any'>): string {
  return kind === 'list' ? 'a JSON list' : 'a JSON object';
}

function jsonKind(data: unknown): string {
  if (Array.isArray(data)) return 'a JSON array';
  if (data === null) return 'JSON null';
  if (typeof data === 'object') return 'a JSON object holding no list';
  return `a JSON ${typeof data}`;
}

function excerpt(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > 80 ? `${trimmed.slice(0, 40)}...${trimmed.slice(-20)}` : trimmed;
}

/**
 * A redirect target as it may be shown: resolved against the request, without user:password,
 * query or fragment (a login page's query may carry tokens).
 */
export function safeLocation(location: string | undefined, base: URL): string | undefined {
  if (location === undefined || location.trim() === '') return undefined;
  let target: URL;
  try {
    target = new URL(location.trim(), base);
  } catch {
    return '(an unreadable Location)';
  }
  const hidden = target.search !== '' || target.hash !== '' ? '?...' : '';
  return `${target.protocol}//${target.host}${target.pathname}${hidden}`;
}

/** The first readable line of a body: an HTML page's title, or its first non-empty line. */
export function firstLine(text: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([^<]*)<\/h1>/i.exec(text)?.[1];
  const line = (title ?? text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '').trim();
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}
