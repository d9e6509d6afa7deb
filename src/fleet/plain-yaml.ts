// A reader for the plain block YAML a fleet file is written in (as `svc export` writes it, and as
// people write it by hand): indented mappings and `- ` lists, one value a line, plain or quoted
// scalars, one-line `{...}`/`[...]` collections, comments. On a file of ten thousand numbers it
// takes a fraction of what a full YAML parser does (the largest part of a no-change `svc diff`).
// Anything outside that plain style (anchors, tags, block or multi-line scalars, several
// documents, keys that are not simple words, a key given twice, anything odd) gives undefined,
// and the full reader (js-yaml, then `yaml` for positions) reads the file instead. Values are
// those of YAML 1.2's core schema, as js-yaml gives them: the tests hold the two to the same
// output.

import {
  BRACE,
  CLOSE_BRACE,
  COMMA,
  DASH,
  HASH,
  InlineScanner,
  KeyTable,
  NOT_PLAIN,
  NotPlain,
  QUOTE,
  SPACE,
  SPECIAL_START,
  flowScalarEnd,
  resolvePlain,
  setKey,
} from './plain-yaml-values.js';

// Characters YAML does not allow in a stream, or that only the full reader handles well.
const UNUSUAL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\t\r\ufeff\ufffe\uffff\u2028\u2029\ud800-\udfff]/;

/** The value of `text`, or undefined when it is not plain block YAML (the full reader decides). */
export function readPlainYaml(text: string): unknown {
  const body = text.includes('\r\n') ? text.replace(/\r\n/g, '\n') : text;
  if (UNUSUAL.test(body)) return undefined;
  try {
    return new BlockReader(body).document();
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/** An open block collection: a mapping (`key: ...` lines) or a list (`- ...` lines) at an indent. */
interface Block {
  indent: number;
  map: Record<string, unknown> | undefined;
  list: unknown[] | undefined;
}

/**
 * Where a value written on the lines below goes (after `key:` or `-` with nothing after it), and
 * whether a list may stand at the same indent as its key (YAML allows it under a key, not under `-`).
 */
interface Pending {
  block: Block;
  key: string;
  sameIndentList: boolean;
}

/**
 * Reads the text line by line in one loop, with a stack of the collections still open, so that a
 * line costs a few comparisons and no call chain; only keys and values are cut out of the text.
 */
class BlockReader {
  private readonly keys = new KeyTable();
  /** Reads the values that need more than a glance; one for the whole file. */
  private readonly scanner: InlineScanner;
  private readonly stack: Block[] = [];
  private pending: Pending | undefined;
  private root: unknown;

  constructor(private readonly text: string) {
    this.scanner = new InlineScanner(text, this.keys);
  }

  document(): unknown {
    const text = this.text;
    let first = true;
    for (let from = 0; from <= text.length; ) {
      let stop = text.indexOf('\n', from);
      if (stop === -1) stop = text.length;
      let begin = from;
      while (text.charCodeAt(begin) === SPACE) begin++;
      if (begin < stop && text.charCodeAt(begin) !== HASH) {
        let last = stop;
        while (text.charCodeAt(last - 1) === SPACE) last--;
        // A document marker or directive: only a single leading `---` is plain.
        const marker = begin === from && (text.startsWith('---', begin) || text.startsWith('...', begin) || text.charCodeAt(begin) === 0x25);
        if (marker && !(first && last - begin === 3 && text.startsWith('---', begin))) throw NOT_PLAIN;
        if (!marker) this.line(begin - from, begin, last);
        first = false;
      }
      from = stop + 1;
    }
    if (this.stack.length === 0) throw NOT_PLAIN; // nothing but comments
    if (this.pending !== undefined) this.settle(null);
    return this.root;
  }

  /** One line holding something: `indent` spaces, then text[start, end). */
  private line(indent: number, start: number, end: number): void {
    const item = this.isItem(start, end);
    const pending = this.pending;
    if (pending !== undefined) {
      const under = pending.block.indent;
      if (indent > under || (pending.sameIndentList && indent === under && item)) {
        this.pending = undefined;
        this.open(indent, item, pending);
        this.entry(indent, start, end, item);
        return;
      }
      this.settle(null);
    }
    if (this.stack.length === 0) {
      this.open(indent, item, undefined);
      this.entry(indent, start, end, item);
      return;
    }
    let top = this.stack[this.stack.length - 1]!;
    // A line less indented closes the blocks it is outside of; so does a line that is no item at
    // the indent of a list (the list was written under its key, at the key's indent).
    while (indent < top.indent || (indent === top.indent && top.list !== undefined && !item && this.stack.length > 1 && this.stack[this.stack.length - 2]!.indent === indent)) {
      this.stack.pop();
      if (this.stack.length === 0) throw NOT_PLAIN; // more after the top-level block
      top = this.stack[this.stack.length - 1]!;
    }
    if (indent > top.indent) throw NOT_PLAIN;
    if (top.map !== undefined ? item : !item) throw NOT_PLAIN;
    this.entry(indent, start, end, item);
  }

  /** The current line is `-` or `- ...`. */
  private isItem(start: number, end: number): boolean {
    return this.text.charCodeAt(start) === DASH && (start + 1 === end || this.text.charCodeAt(start + 1) === SPACE);
  }

  /** Opens a block at `indent` (a list when its first line is an item), as the value waiting for it. */
  private open(indent: number, item: boolean, into: Pending | undefined): void {
    const block: Block = { indent, map: item ? undefined : {}, list: item ? [] : undefined };
    const value = item ? block.list : block.map;
    if (into !== undefined) this.place(into, value);
    else if (this.stack.length === 0) this.root = value;
    this.stack.push(block);
  }

  /** A value that was waiting for the lines below turns out to be empty: null. */
  private settle(value: unknown): void {
    const pending = this.pending!;
    this.pending = undefined;
    this.place(pending, value);
  }

  private place(pending: Pending, value: unknown): void {
    if (pending.block.map !== undefined) setKey(pending.block.map, pending.key, value);
    else pending.block.list!.push(value);
  }

  /** The line at `start` as an entry of the block on top of the stack (a key line or an item). */
  private entry(indent: number, start: number, end: number, item: boolean): void {
    const text = this.text;
    const block = this.stack[this.stack.length - 1]!;
    if (!item) {
      const colon = this.keyEnd(start, end);
      if (colon === -1) throw NOT_PLAIN;
      const key = this.keys.key(text, start, colon);
      const value = this.valueStart(colon + 1, end);
      if (value === -1) this.pending = { block, key, sameIndentList: true };
      else setKey(block.map!, key, this.inlineValue(value, end));
      return;
    }
    let rest = start + 1;
    while (rest < end && text.charCodeAt(rest) === SPACE) rest++;
    if (rest === end || text.charCodeAt(rest) === HASH) {
      this.pending = { block, key: '', sameIndentList: false };
    } else if (this.isItem(rest, end) || (!FLOW_OR_QUOTE.has(text[rest]!) && this.keyEnd(rest, end) !== -1)) {
      // `- key: value` or `- - item`: the rest of the line opens a collection at its column.
      const column = indent + (rest - start);
      const nested = this.isItem(rest, end);
      this.open(column, nested, { block, key: '', sameIndentList: false });
      this.entry(column, rest, end, nested);
    } else {
      block.list!.push(this.inlineValue(rest, end));
    }
  }

  /**
   * `{key: value, key: "value"}` filling the rest of the line, its values words or quoted text
   * without escapes (as `autoResponse: {enabled: true, message: "Back soon"}`), read without the
   * scanner; undefined for anything else, which the scanner reads.
   */
  private simpleFlowMapping(from: number, to: number): Record<string, unknown> | undefined {
    const text = this.text;
    const last = to - 1;
    if (text.charCodeAt(last) !== CLOSE_BRACE) return undefined;
    const map: Record<string, unknown> = {};
    let at = from + 1;
    for (;;) {
      while (text.charCodeAt(at) === SPACE) at++;
      const colon = text.indexOf(':', at);
      if (colon === -1 || colon >= last || text.charCodeAt(colon + 1) !== SPACE) return undefined;
      const key = this.keys.find(text, at, colon);
      if (key === undefined) return undefined;
      at = colon + 2;
      while (text.charCodeAt(at) === SPACE) at++;
      const end = flowScalarEnd(text, at, last);
      if (end === -1) return undefined;
      let value: unknown;
      if (text.charCodeAt(at) === QUOTE) value = text.slice(at + 1, end - 1);
      else {
        let trimmed = end;
        while (text.charCodeAt(trimmed - 1) === SPACE) trimmed--;
        value = resolvePlain(text.slice(at, trimmed));
      }
      setKey(map, key, value);
      at = end;
      while (text.charCodeAt(at) === SPACE) at++;
      if (at === last) return map;
      if (text.charCodeAt(at) !== COMMA) return undefined;
      at++;
    }
  }

  /** Where `word:` ends on a line from `from` (the colon), or -1 when it does not begin so. */
  private keyEnd(from: number, to: number): number {
    const colon = this.text.indexOf(':', from);
    if (colon <= from || colon >= to) return -1;
    if (colon + 1 < to && this.text.charCodeAt(colon + 1) !== SPACE) return -1;
    return colon;
  }

  /** From `from` on the line, past spaces: -1 when only a comment or nothing is left. */
  private valueStart(from: number, to: number): number {
    while (from < to && this.text.charCodeAt(from) === SPACE) from++;
    return from === to || this.text.charCodeAt(from) === HASH ? -1 : from;
  }

  /** A value written on its line after `key: ` or `- ` (the next line may not be more indented: checked by line()). */
  private inlineValue(from: number, to: number): unknown {
    const text = this.text;
    const c = text.charCodeAt(from);
    // Most values are a word or a quoted number alone on their line: read without the scanner.
    if (c === QUOTE) {
      const close = text.indexOf('"', from + 1);
      if (close === to - 1) {
        const inner = text.slice(from + 1, close);
        if (!inner.includes('\\')) return inner;
      }
    } else if (c === BRACE) {
      const map = this.simpleFlowMapping(from, to);
      if (map !== undefined) return map;
    } else if (!SPECIAL_START.has(text[from]!)) {
      // The engine's own search over the value, not a loop over its characters.
      const raw = text.slice(from, to);
      if (!PLAIN_ENDS_EARLY.test(raw)) return resolvePlain(raw);
    }
    const scanner = this.scanner;
    scanner.reset(from, to);
    const value = scanner.value(false);
    scanner.finish();
    return value;
  }
}

const FLOW_OR_QUOTE = new Set(['{', '[', '"', "'"]);
/** A plain value that stops before the end of its line: a ` #` comment, or a `: ` (or a `:` at the end). */
const PLAIN_ENDS_EARLY = / #|:(?: |$)/;

