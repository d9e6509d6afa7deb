// The recipients of a text file: one number a line (the parser the scanner uses when the file is
// not CSV).

import type { RecordHandler, RecordParser } from './recipient-scanner.js';

export const LF = 0x0a;
export const CR = 0x0d;

/** One number a line; surrounding whitespace trimmed, blank lines skipped; LF, CRLF or CR. */
export class TextLineParser implements RecordParser {
  private partial = '';
  private line = 1;
  private previousWasCR = false;

  constructor(private readonly onRecord: RecordHandler) {}

  push(text: string): void {
    let start = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== LF && code !== CR) continue;
      if (code === LF && this.previousWasCR && i === start && this.partial === '') {
        // The LF of a CRLF whose CR ended the previous line.
        this.previousWasCR = false;
        start = i + 1;
        continue;
      }
      this.emit(this.partial + text.slice(start, i));
      this.partial = '';
      this.line++;
      this.previousWasCR = code === CR;
      start = i + 1;
    }
    if (start < text.length) {
      this.partial += text.slice(start);
      this.previousWasCR = false;
    }
  }

  end(): void {
    if (this.partial !== '') this.emit(this.partial);
    this.partial = '';
  }

  pendingLength(): number {
    return this.partial.length;
  }

  pendingLine(): number {
    return this.line;
  }

  private emit(raw: string): void {
    const value = raw.trim();
    if (value !== '') this.onRecord([value], this.line, null);
  }
}
