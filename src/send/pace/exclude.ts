import { createHash } from 'node:crypto';
import { UsageError } from '../../errors.js';
import { PhoneNumberMap } from '../phone-number-map.js';
import type { InputSource } from '../input-source.js';
import { readRecipientBatches, RecipientsFileError } from '../recipients.js';

// --exclude-file FILE: a suppression list (people who opted out, numbers known bad). Read with the
// --to-file reader (one number a line, or a CSV with a number column; UTF-8 or UTF-16, any line
// ending), so the same file a CRM exports works for both. A suppression list is often typed or
// pasted by people, so the usual separators inside a number are forgiven ("+1 (415) 555-1001"
// matches +14155551001); what is still not E.164 after that is exit 2 naming the file and line,
// because a suppression list that is silently half-read is worse than none.

/** Spaces (also no-break and thin), dashes, dots, slashes and parentheses, inside a number. */
const SEPARATORS = /[\s\u00a0\u2009\u202f\-\u2010-\u2015.()/]/g;

export function normalizeExcludedNumber(value: string): string {
  return value.replace(SEPARATORS, '');
}

export interface ExcludeList {
  has(e164: string): boolean;
  /** Distinct numbers in the file. */
  readonly size: number;
  /** `sha256:` of the distinct numbers, sorted, one a line: the same set gives the same digest, however written. */
  readonly digest: string;
  /** The distinct numbers, sorted as the digest sorts them (made when asked: a journal's record of the list). */
  numbers(): string[];
}

export async function readExcludeFile(path: string | InputSource): Promise<ExcludeList> {
  const numbers = new PhoneNumberMap();
  const distinct: string[] = [];
  try {
    for await (const batch of readRecipientBatches(path, { normalizeNumber: normalizeExcludedNumber })) {
      for (const row of batch) {
        if (numbers.has(row.to)) continue;
        numbers.set(row.to, 1);
        distinct.push(row.to);
      }
    }
  } catch (error) {
    if (error instanceof RecipientsFileError) throw new UsageError(`--exclude-file ${error.message}`);
    throw error;
  }
  const digest = `sha256:${createHash('sha256').update(distinct.sort().join('\n')).digest('hex')}`;
  return {
    has: (e164) => numbers.has(e164),
    size: numbers.size,
    digest,
    numbers: () => {
      const sorted: string[] = [];
      numbers.forEach((number) => sorted.push(number));
      return sorted.sort();
    },
  };
}
