import type { Readable } from 'node:stream';
import { UsageError } from '../../errors.js';
import { writeFileAtomic } from '../../domain/files/atomic-write.js';
import { cannotWrite } from '../../input/file-errors.js';
import { MAX_RECIPIENTS_BYTES, openInput } from '../input-source.js';
import { readRecipientBatches } from '../recipients.js';

// --failed-to: the recipients to send to again, in the form `svc send --to-file` reads.

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || value !== value.trim() ? `"${value.replace(/"/g, '""')}"` : value;
}

/**
 * Writes the file whole or not at all (a failed-to list cut short by a full disk would leave
 * people out of the next send without a word); a file that cannot be written is exit 1 naming it.
 */
export async function writeFailedTo(target: string, failed: ReadonlySet<string>, toFile: string | undefined, stdin: Readable): Promise<number> {
  let written = 0;
  try {
    await writeFileAtomic(target, async (write) => {
      if (toFile === undefined) {
        const lines = [...failed].map((to) => `${to}\n`);
        written = lines.length;
        await write(lines.join(''));
        return;
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
          if (out.length > 0) await write(out.join(''));
        }
      } finally {
        source.close();
      }
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'InputFileError') throw new UsageError(error.message);
    throw cannotWrite('--failed-to', target, error);
  }
  return written;
}
