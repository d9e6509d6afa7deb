// Field rules shared by the CLI (checked before a request) and the sandbox (checked on receipt),
// so that both sides agree on what a valid value is.

/**
 * Matches an input case-insensitively against an enumeration and returns the document's
 * spelling, or undefined when it is not one of the values.
 */
export function matchEnum<T extends string>(values: readonly T[], input: string): T | undefined {
  const lowered = input.trim().toLowerCase();
  return values.find((v) => v.toLowerCase() === lowered);
}

/** ISO 8601 date-time (date alone accepted too), parseable by Date. */
export function isIsoDateTime(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/.test(value)) {
    return false;
  }
  if (Number.isNaN(Date.parse(value))) return false;
  // Date.parse rolls a day past the month's end over (2026-02-30 is March 2), so check the day.
  const [year, month, day] = value.slice(0, 10).split('-').map(Number) as [number, number, number];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** An e-mail address: one @ with text before it and a dotted domain after it, no spaces or commas. */
export function isEmailAddress(value: string): boolean {
  return /^[^\s@,]+@[^\s@,]+\.[^\s@,]+$/.test(value);
}
