import { closeSync, openSync, writeSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { MAX_RECIPIENTS_BYTES, openInput } from '../input-source.js';
import { readRecipientBatches } from '../recipients.js';

// --failed-to: the recipients to send to again, in the form `svc send --to-file` reads.

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

export async function writeFailedTo(target: string, failed: ReadonlySet<string>, toFile: string | undefined, stdin: Readable): Promise<number> {
  let fd: number;
  try {
    fd = openSync(target, 'w', 0o600);
  } catch (error) {
    throw new UsageError(`cannot write --failed-to ${target}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let written = 0;
  try {
    if (toFile === undefined) {
      const lines = [...failed].map((to) => `${to}\n`);
      written = lines.length;
      writeSync(fd, lines.join(''));
      return written;
    }
    const source = await openInput(toFile, { flag: '--to-file', maxBytes: MAX_RECIPIENTS_BYTES, reread: false, stdin, stdinIsTTY: false });
    let header: string[] | undefined;
    try {
    for await (const rows of readRecipientBatches(source)) {
      const out: string[] = [];
      for (const row of rows) {
        if (!failed.has(row.to)) continue;
        const columns = Object.keys(row.fields);
        if (header === undefined) {
          header = columns;
          if (header.length > 0) out.push(`${header.map(csvCell).join(',')}\n`);
        }
        out.push(header.length > 0 ? `${header.map((name) => csvCell(row.fields[name] ?? '')).join(',')}\n` : `${row.to}\n`);
        written++;
      }
      if (out.length > 0) writeSync(fd, out.join(''));
    }
    } finally {
      source.close();
    }
    return written;
  } finally {
    closeSync(fd);
  }
}
