// How listener reports look: one readable line per event for a person at a terminal, or one JSON
// object per line for scripts. Colour is passed in (the command owns the TTY question), so this
// module stays free of terminal libraries.

import type { AcceptedWebhookEvent, ForwardResult, RejectedWebhookRequest } from './types.js';
import type { WebhookEventKind } from './payloads.js';
import { plainPalette, type Palette } from '../output/palette.js';
import { jsonString } from '../output/json-text.js';
import { visibleLine } from '../output/terminal.js';

export { plainPalette, type Palette } from '../output/palette.js';

export interface LineFormatOptions {
  palette?: Palette;
  /** Clock times in local time (default, for a person) or UTC (stable in tests and logs). */
  timeZone?: 'local' | 'utc';
  /** Longest message text shown before it is cut with an ellipsis (default 80 characters). */
  maxTextLength?: number;
}

const KIND_LABELS: Record<WebhookEventKind, string> = {
  MessageReceived: 'message',
  DeliveryReceipt: 'receipt',
  OrderStatus: 'order',
  unknown: 'unknown',
};

/** The short label a line shows for each kind. */
export function kindLabel(kind: WebhookEventKind): string {
  return KIND_LABELS[kind];
}

// Payload text comes from whoever can reach the port: its control characters are shown escaped
// (one line each, visibleLine), so that an event cannot rewrite the terminal.

function clip(text: string, max: number): string {
  const characters = Array.from(text);
  return characters.length <= max ? text : `${characters.slice(0, Math.max(1, max - 1)).join('')}…`;
}

function clockTime(date: Date, timeZone: 'local' | 'utc'): string {
  const two = (value: number): string => String(value).padStart(2, '0');
  return timeZone === 'utc'
    ? `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`
    : `${two(date.getHours())}:${two(date.getMinutes())}:${two(date.getSeconds())}`;
}

function statusColour(status: string, palette: Palette): string {
  const lower = status.toLowerCase();
  if (/^(delivered|completed|active|sent)$/.test(lower)) return palette.green(status);
  if (/(fail|error|reject|cancel|undeliver)/.test(lower)) return palette.red(status);
  return palette.yellow(status);
}

function describeForward(forward: ForwardResult, answered: number, palette: Palette): string {
  if (forward.status === null) {
    return palette.red(`-> app unreachable (${visibleLine(forward.error ?? 'no answer')}), answered ${answered}`);
  }
  const text = `-> app ${forward.status} in ${Math.round(forward.durationMs)} ms`;
  return forward.status >= 200 && forward.status < 300 ? palette.dim(text) : palette.red(text);
}

/** One readable line: time, kind, who, status, text; then delivery id, duplicate and relay notes. */
export function formatEventLine(event: AcceptedWebhookEvent, options: LineFormatOptions = {}): string {
  const palette = options.palette ?? plainPalette;
  const maxText = options.maxTextLength ?? 80;
  const { summary } = event;
  const parts: string[] = [palette.dim(clockTime(event.receivedAt, options.timeZone ?? 'local'))];
  parts.push(event.duplicate ? palette.dim(`${kindLabel(event.kind)} (duplicate)`) : palette.bold(kindLabel(event.kind).padEnd(7)));

  if (event.duplicate) {
    parts.push(palette.dim(`already acknowledged, answered ${event.status}`));
  } else {
    if (event.kind === 'OrderStatus' && summary.id !== undefined) parts.push(`#${visibleLine(summary.id)}`);
    else if (summary.from === undefined && summary.id !== undefined) parts.push(visibleLine(summary.id));
    if (summary.from !== undefined || summary.to !== undefined) {
      const to = summary.to === undefined ? '?' : summary.to.map(visibleLine).join(',');
      parts.push(`${visibleLine(summary.from ?? '?')} -> ${to}`);
    }
    if (summary.status !== undefined) parts.push(statusColour(visibleLine(summary.status), palette));
    if (summary.text !== undefined) {
      const shown = visibleLine(clip(summary.text, maxText));
      parts.push(event.kind === 'MessageReceived' ? `"${shown}"` : shown);
    }
    if (summary.attachments !== undefined) {
      parts.push(palette.dim(`(${summary.attachments} attachment${summary.attachments === 1 ? '' : 's'})`));
    }
    if (event.kind === 'unknown' && summary.id === undefined && summary.text === undefined) {
      parts.push(palette.dim(visibleLine(clip(event.raw.replace(/\s+/g, ' ').trim(), maxText))));
    }
  }
  if (event.deliveryId !== null) parts.push(palette.dim(`[${visibleLine(clip(event.deliveryId, 64))}]`));
  if (event.forward !== null) parts.push(describeForward(event.forward, event.status, palette));
  return parts.join('  ');
}

/** A warning line for a refused request (the command writes it to stderr). */
export function formatRejectionLine(rejection: RejectedWebhookRequest, options: LineFormatOptions = {}): string {
  const palette = options.palette ?? plainPalette;
  const where = `${visibleLine(rejection.method)} ${visibleLine(clip(rejection.path, 80))}`;
  const from = rejection.remoteAddress === null ? '' : ` from ${rejection.remoteAddress}`;
  const delivery = rejection.deliveryId === null ? '' : ` [${visibleLine(clip(rejection.deliveryId, 64))}]`;
  return `${palette.dim(clockTime(rejection.receivedAt, options.timeZone ?? 'local'))}  ${palette.yellow(
    `rejected ${rejection.status}`,
  )}  ${where}${from}${delivery}: ${visibleLine(rejection.reason)}`;
}

let lastMs = Number.NaN;
let lastIso = '';

/** toISOString, formatted once a millisecond: a busy listener receives many events in each. */
export function isoTime(date: Date): string {
  const ms = date.getTime();
  if (ms !== lastMs) {
    lastIso = date.toISOString();
    lastMs = ms;
  }
  return lastIso;
}

function jsonValue(value: unknown): string {
  if (typeof value === 'string') return jsonString(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) {
    let text = '[';
    for (let i = 0; i < value.length; i++) text += i === 0 ? jsonString(value[i] as string) : `,${jsonString(value[i] as string)}`;
    return `${text}]`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** JSON.stringify of the summary (its members in their order), from its parts. */
function jsonSummary(summary: Readonly<Record<string, unknown>>): string {
  let text = '{';
  for (const key of Object.keys(summary)) {
    const value = summary[key];
    if (value === undefined) continue;
    const member = `${jsonString(key)}:${jsonValue(value)}`;
    text += text.length === 1 ? member : `,${member}`;
  }
  return `${text}}`;
}

/**
 * One JSON object (no newline inside) per event. The payload is embedded as the bytes received,
 * so that large numbers and key order survive; a newline in valid JSON can only be whitespace
 * between tokens, so replacing it keeps the document valid and the object on one line. Built
 * from its parts: the text JSON.stringify gives for the head (a test holds the two equal),
 * without a call into it for every member.
 */
export function formatEventJsonLine(event: AcceptedWebhookEvent): string {
  const head =
    `{"receivedAt":"${isoTime(event.receivedAt)}","kind":${jsonString(event.kind)},"event":${event.eventHeader === null ? 'null' : jsonString(event.eventHeader)}` +
    `,"deliveryId":${event.deliveryId === null ? 'null' : jsonString(event.deliveryId)},"duplicate":${event.duplicate},"signature":${jsonString(event.signature)}` +
    `,"status":${JSON.stringify(event.status)},"summary":${jsonSummary(event.summary as Record<string, unknown>)},"forward":${event.forward === null ? 'null' : JSON.stringify(event.forward)}`;
  const raw = event.raw;
  const payload = raw.includes('\n') || raw.includes('\r') ? raw.replace(/[\r\n]+/g, ' ').trim() : raw.trim();
  return `${head},"payload":${payload}}`;
}

export function formatRejectionJsonLine(rejection: RejectedWebhookRequest): string {
  return JSON.stringify({
    receivedAt: rejection.receivedAt.toISOString(),
    rejected: true,
    status: rejection.status,
    reason: rejection.reason,
    method: rejection.method,
    path: rejection.path,
    remoteAddress: rejection.remoteAddress,
    deliveryId: rejection.deliveryId,
  });
}
