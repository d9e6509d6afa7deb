import type { SendContext } from './send-context.js';
import type { BulkResult } from './bulk-types.js';
import { checkFields, selectFields, valueAt } from '../output/fields.js';
import { writeExact } from '../output/io.js';
import { visibleLine } from '../output/terminal.js';
import { jsonStrings } from '../output/json-text.js';

// The results of a send as they arrive. --json: one array, one element per request,
// `{"to": [...], ...answer}` or `{"to": [...], "error": {...}}`, streamed so that a long run holds
// nothing; -o ndjson: one element a line; piped table output: a tab-separated row per request;
// for a single request, a row per recipient (sent-view.ts); on a terminal, only the failures of a bulk run.

/** How long a result may wait to be written with the ones after it. */
const OUTPUT_FLUSH_MS = 25;

export type SendElement = Record<string, unknown> & { to: string[] };

/** `to` first, as the contract shows it, then the server's fields in their order. */
export function elementFor(result: BulkResult): SendElement {
  if (result.outcome !== 'accepted') return { to: result.to, error: result.error };
  const element: SendElement = { to: result.to, ...result.answer };
  // An answer with a `to` of its own must not replace the recipients this request was for.
  element.to = result.to;
  return element;
}

/**
 * JSON.stringify(elementFor(result)), the same text, without the copy of the answer for the
 * element: an accepted answer's own JSON follows `"to"` when it has no `to` and no key that
 * JSON would put first (an array index). A bulk send's -o ndjson writes one a request.
 */
export function elementJson(result: BulkResult): string {
  if (result.outcome === 'accepted') {
    const answer = JSON.stringify(result.answer);
    const c = answer.charCodeAt(2);
    if (answer.length > 2 && !(c >= 0x30 && c <= 0x39) && !Object.prototype.hasOwnProperty.call(result.answer, 'to')) {
      return `{"to":${jsonStrings(result.to)},${answer.slice(1)}`;
    }
  }
  return JSON.stringify(elementFor(result));
}

/**
 * What --fields may name in a send's results, checked before anything is sent (an answer that
 * arrives later cannot make a run that already sent fail on a misspelt field). Names from the
 * document's answer (messageId, status, queuedAt) and the error element.
 */
const SEND_ELEMENT_SAMPLE: SendElement = {
  to: [],
  messageId: '',
  status: '',
  queuedAt: '',
  error: { status: null, message: '', title: null, errorCode: null },
};

export function checkSendFields(fields: readonly string[] | undefined): void {
  if (fields && fields.length > 0) checkFields([SEND_ELEMENT_SAMPLE], fields);
}

export interface ResultPrinter {
  add(result: BulkResult): void;
  end(): Promise<void>;
  /** A promise while stdout is full, so that the sender waits instead of queueing output. */
  ready(): Promise<void> | undefined;
  /** Called before a line is written to the terminal (the progress line clears itself). */
  beforeTerminalLine?: () => void;
}

export function createResultPrinter(ctx: SendContext, options: { bulk: boolean; beforeTerminalLine?: () => void }): ResultPrinter {
  const format = ctx.globals.output;
  const out = ctx.io.stdout;
  const fields = ctx.globals.fields !== undefined && ctx.globals.fields.length > 0 ? ctx.globals.fields : undefined;
  // --fields was checked before the first request (checkSendFields): here it only selects.
  const shown = (element: SendElement): unknown => (fields ? selectFields(element, fields) : element);
  let count = 0;
  let single: BulkResult | undefined;
  // Results are written every 25 ms (or 64 KB), not one write(2) each: stdout to a pipe or a
  // file is written synchronously, and even one write an event-loop turn (a few answers) was a
  // measurable share of a bulk send's CPU time.
  let pending = '';
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    if (timer !== undefined) {
      clearTimeout(timer);
      timer = undefined;
    }
    if (pending === '') return;
    const text = pending;
    pending = '';
    // JSON as JSON.stringify wrote it; the tab-separated rows are for people too (terminal-safe).
    if (format === 'table') out.write(text);
    else writeExact(out, text);
  };
  const write = (text: string): void => {
    pending += text;
    if (pending.length >= 64 * 1024) flush();
    else timer ??= setTimeout(flush, OUTPUT_FLUSH_MS);
  };
  return {
    add(result) {
      // The element is made where it is shown (-o ndjson without --fields writes the result's JSON directly).
      if (format === 'json') {
        write(`${count === 0 ? '[\n  ' : ',\n  '}${JSON.stringify(shown(elementFor(result)), null, 2).replace(/\n/g, '\n  ')}`);
      } else if (format === 'ndjson') {
        write(`${fields ? JSON.stringify(shown(elementFor(result))) : elementJson(result)}\n`);
      } else if (!options.bulk) {
        single = result;
      } else if (!ctx.io.stdoutIsTTY && fields) {
        write(`${fields.map((field) => fieldText(valueAt(elementFor(result), field))).join('\t')}\n`);
      } else if (!ctx.io.stdoutIsTTY) {
        const to = result.to.join(',');
        if (result.outcome === 'accepted') {
          write(`${to}\taccepted\t${String(result.answer['messageId'] ?? '')}\t${String(result.answer['status'] ?? '')}\n`);
        } else {
          write(`${to}\t${result.outcome}\t\t${result.error.message.replace(/[\t\r\n]+/g, ' ')}\n`);
        }
      } else if (result.outcome !== 'accepted') {
        options.beforeTerminalLine?.();
        out.write(`${result.to.join(', ')}: ${result.outcome === 'unknown' ? 'no answer (may have been sent)' : 'failed'}: ${visibleLine(result.error.message)}\n`);
      }
      count++;
    },
    async end() {
      if (format === 'json') write(count === 0 ? '[]\n' : '\n]\n');
      flush();
      if (format !== 'table') return;
      if (single !== undefined && single.outcome === 'accepted') {
        if (fields) {
          const { writeObject } = await import('../output/render.js');
          await writeObject(ctx, shown(elementFor(single)), { title: 'Sent', fieldsChecked: true });
        } else {
          const { writeSent } = await import('./sent-view.js');
          await writeSent(ctx, elementFor(single));
        }
      }
    },
    ready() {
      if (!out.writableNeedDrain) return undefined;
      return new Promise<void>((resolve) => out.once('drain', resolve));
    },
  };
}

/** A piped --fields cell: one line, objects as JSON. */
function fieldText(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(',') : JSON.stringify(value);
  return text.replace(/[\t\r\n]+/g, ' ');
}
