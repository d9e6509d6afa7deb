import { CronPattern } from 'croner';

// In a module of its own so that croner loads only with the settings checker, not with every
// command that checks a phone number.

/**
 * A cron expression as the document's `periodicCron` means it: the standard five fields (minute,
 * hour, day of month, month, day of week), each checked for its range, names, lists, ranges and
 * steps by croner, so that `banana * * * *` and `99 99 * * *` are refused. Nicknames such as
 * `@daily` and the seconds or year fields of other dialects are refused too.
 */
export function isCronExpression(value: string): boolean {
  const trimmed = value.trim();
  if (trimmed.split(/\s+/).length !== 5 || trimmed.startsWith('@')) return false;
  try {
    new CronPattern(trimmed, undefined, { mode: '5-part' });
    return true;
  } catch {
    return false;
  }
}
