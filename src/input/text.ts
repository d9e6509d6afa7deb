import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { UsageError } from '../errors.js';

// Every text file svc reads from a user is decoded strictly: UTF-8 (with or without a byte-order
// mark), or UTF-16 little- or big-endian when it starts with that mark. A byte that is not part
// of a character in that encoding, a UTF-16 surrogate without its pair, or a file that ends in the
// middle of a character is refused (exit 2) naming the file, the line and the byte's offset,
// before anything is sent. Decoding lossily would send "Jos\uFFFD" to the service for a Latin-1
// "José", which nobody can take back.
//
// The decoder streams: a recipients file of a gigabyte is decoded a chunk at a time. The fast
// path is the platform's fatal TextDecoder; only when it throws is the chunk scanned by hand to
// find the exact byte, so valid input costs one count of line breaks per chunk.

export type TextEncodingName = 'utf-8' | 'utf-16le' | 'utf-16be';

/** A file that is not text in a supported encoding: a usage error naming where it goes wrong. */
export class InvalidTextError extends UsageError {
  constructor(
    readonly file: string,
    /** 1-based line of the bad byte (line breaks counted up to it). */
    readonly line: number,
    /** 0-based offset of the bad byte in the file, as `xxd` and `hexdump` count. */
    readonly byteOffset: number,
    /** The encoding the file was read in: "UTF-8", "UTF-16LE". */
    readonly encoding: string,
    /** What is wrong there. */
    readonly problem: string,
  ) {
    super(`${file}:${line}: not valid ${encoding} at byte offset ${byteOffset}: ${problem}`, [
      'svc reads text files as UTF-8 (or UTF-16 with a byte-order mark); save the file in one of those encodings.',
    ]);
  }
}

const ENCODING_LABEL: Readonly<Record<TextEncodingName, string>> = { 'utf-8': 'UTF-8', 'utf-16le': 'UTF-16LE', 'utf-16be': 'UTF-16BE' };

/** The encoding a file's first bytes announce: a UTF-16 byte-order mark, else UTF-8. */
function encodingOf(start: Uint8Array): TextEncodingName {
  if (start[0] === 0xff && start[1] === 0xfe) return 'utf-16le';
  if (start[0] === 0xfe && start[1] === 0xff) return 'utf-16be';
  return 'utf-8';
}

function countLineBreaks(text: string): number {
  let count = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  return count;
}

function hex(byte: number): string {
  return `0x${byte.toString(16).toUpperCase().padStart(2, '0')}`;
}

/** The length of a UTF-8 sequence that starts with `lead`, or 0 when it cannot start one. */
function utf8Length(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * The first byte of `bytes` (which starts on a character boundary) that is not valid UTF-8, and
 * what is wrong with it; undefined when the only fault is a character cut off at the end.
 */
function findUtf8Fault(bytes: Uint8Array): { at: number; problem: string } | undefined {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i]!;
    const length = utf8Length(lead);
    if (length === 0) return { at: i, problem: `the byte ${hex(lead)} cannot start a character` };
    if (length === 1) {
      i++;
      continue;
    }
    // The second byte's range depends on the lead (no overlong forms, no surrogates, nothing past U+10FFFF).
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      if (i + k >= bytes.length) return undefined;
      const next = bytes[i + k]!;
      const ok = k === 1 ? next >= low && next <= high : next >= 0x80 && next <= 0xbf;
      if (!ok) return { at: i, problem: `the byte ${hex(lead)} is not followed by the rest of a character` };
    }
    i += length;
  }
  return undefined;
}

/** The first unpaired surrogate in UTF-16 `bytes` (starting on a code unit), if any. */
function findUtf16Fault(bytes: Uint8Array, encoding: 'utf-16le' | 'utf-16be'): { at: number; problem: string } | undefined {
  const unit = (i: number): number => (encoding === 'utf-16le' ? bytes[i]! | (bytes[i + 1]! << 8) : (bytes[i]! << 8) | bytes[i + 1]!);
  let i = 0;
  while (i + 1 < bytes.length) {
    const u = unit(i);
    if (u >= 0xdc00 && u <= 0xdfff) return { at: i, problem: `a low surrogate (0x${u.toString(16).toUpperCase()}) without its high half` };
    if (u >= 0xd800 && u <= 0xdbff) {
      if (i + 3 >= bytes.length) return undefined;
      const next = unit(i + 2);
      if (next < 0xdc00 || next > 0xdfff) return { at: i, problem: `a high surrogate (0x${u.toString(16).toUpperCase()}) without its low half` };
      i += 4;
      continue;
    }
    i += 2;
  }
  return undefined;
}

/** How many bytes at the end of what was decoded make a character not yet complete. */
function incompleteTail(view: Uint8Array, encoding: TextEncodingName, totalBytes: number): number {
  if (encoding === 'utf-8') {
    for (let back = 1; back <= Math.min(3, view.length); back++) {
      const byte = view[view.length - back]!;
      if ((byte & 0xc0) === 0x80) continue;
      const length = utf8Length(byte);
      return length > back ? back : 0;
    }
    return 0;
  }
  const odd = totalBytes % 2;
  const end = view.length - odd;
  if (end < 2) return odd;
  const u = encoding === 'utf-16le' ? view[end - 2]! | (view[end - 1]! << 8) : (view[end - 2]! << 8) | view[end - 1]!;
  return u >= 0xd800 && u <= 0xdbff ? odd + 2 : odd;
}

/**
 * Decodes a file's bytes as they arrive. `decode` returns the text of each chunk (the byte-order
 * mark dropped), `end` the rest; either throws InvalidTextError at the first fault.
 */
export class StrictTextDecoder {
  private encoding: TextEncodingName | undefined;
  private decoder: TextDecoder | undefined;
  /** The first bytes, held until there are enough to tell the encoding. */
  private head: Uint8Array = new Uint8Array(0);
  /** Bytes given so far. */
  private total = 0;
  /** Bytes at the end of the input that the decoder holds as the start of a character. */
  private pending: Uint8Array = new Uint8Array(0);
  /** Line breaks in the text returned so far. */
  private lineBreaks = 0;

  constructor(readonly file: string) {}

  /** The encoding found, once known. */
  get detected(): TextEncodingName | undefined {
    return this.encoding;
  }

  decode(chunk: Uint8Array): string {
    if (this.decoder === undefined) {
      const joined = concat(this.head, chunk);
      if (joined.length < 3) {
        this.head = joined;
        return '';
      }
      this.head = new Uint8Array(0);
      this.start(joined);
      return this.feed(joined);
    }
    return this.feed(chunk);
  }

  end(): string {
    if (this.decoder === undefined) {
      const head = this.head;
      this.start(head);
      const text = this.feed(head);
      return text + this.flush();
    }
    return this.flush();
  }

  private start(first: Uint8Array): void {
    this.encoding = encodingOf(first);
    this.decoder = new TextDecoder(this.encoding, { fatal: true });
  }

  private feed(chunk: Uint8Array): string {
    const decoder = this.decoder!;
    const encoding = this.encoding!;
    let text: string;
    try {
      text = decoder.decode(chunk, { stream: true });
    } catch {
      throw this.fault(concat(this.pending, chunk), false);
    }
    this.total += chunk.length;
    this.lineBreaks += countLineBreaks(text);
    const view = chunk.length >= 4 ? chunk : concat(this.pending, chunk);
    const tail = incompleteTail(view, encoding, this.total);
    this.pending = tail === 0 ? new Uint8Array(0) : view.slice(view.length - tail);
    return text;
  }

  private flush(): string {
    try {
      return this.decoder!.decode();
    } catch {
      throw this.fault(this.pending, true);
    }
  }

  /** The error for a fault within `bytes`, which start where the decoder's held bytes start. */
  private fault(bytes: Uint8Array, atEnd: boolean): InvalidTextError {
    const encoding = this.encoding!;
    const base = this.total - this.pending.length;
    const found = encoding === 'utf-8' ? findUtf8Fault(bytes) : findUtf16Fault(bytes, encoding);
    const at = found?.at ?? 0;
    const problem = found?.problem ?? (atEnd || bytes.length % 2 === 1 ? 'the file ends in the middle of a character' : 'a byte that is not part of a character');
    // The line: breaks already returned, plus those in the valid bytes before the fault.
    const before = new TextDecoder(encoding, { ignoreBOM: true }).decode(bytes.subarray(0, at));
    const line = this.lineBreaks + countLineBreaks(before) + 1;
    return new InvalidTextError(this.file, line, base + at, ENCODING_LABEL[encoding], problem);
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a, 0);
  joined.set(b, a.length);
  return joined;
}

/** A whole file's bytes as text; throws InvalidTextError naming `file`, line and byte. */
export function decodeText(bytes: Uint8Array, file: string): string {
  // Valid UTF-8, the usual file, is checked and decoded by the platform's vectorised code in a
  // fraction of the streaming decoder's time (a fleet file of ten thousand numbers: 6 ms -> 1.5).
  // The same text: a valid file has one reading, and the byte-order mark is dropped likewise.
  if (encodingOf(bytes) === 'utf-8' && isUtf8(bytes)) {
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    return Buffer.from(bytes.buffer, bytes.byteOffset + start, bytes.length - start).toString('utf8');
  }
  const decoder = new StrictTextDecoder(file);
  return decoder.decode(bytes) + decoder.end();
}
