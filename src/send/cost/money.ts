import { UsageError } from '../../errors.js';

// Amounts of money as whole millionths of the currency unit, so that adding a price per segment a
// hundred thousand times gives the exact sum (0.0079 is 7900, never 0.007899999).

export const UNIT = 1_000_000;

const DECIMAL = /^(\d{1,9})(?:\.(\d{1,6}))?$/;

/** A decimal amount (`0.0079`, `25`, `12.50`) as millionths, or undefined when it is not one. */
export function parseAmount(text: string): number | undefined {
  const match = DECIMAL.exec(text.trim());
  if (match === null) return undefined;
  return Number(match[1]) * UNIT + Number((match[2] ?? '').padEnd(6, '0'));
}

/** `--budget AMOUNT`: a positive amount, in the currency of --prices. */
export function parseBudget(text: string): number {
  const amount = parseAmount(text.replace(/^[A-Za-z]{3}\s+|\s+[A-Za-z]{3}$/g, ''));
  if (amount === undefined || amount === 0) {
    throw new UsageError(`--budget must be a positive amount such as 250 or 99.50 (at most six decimals), not "${text}"`);
  }
  return amount;
}

/** `12.50`, `0.0079`: at least two decimals, more only when the amount has them. */
export function formatAmount(millionths: number, currency: string | undefined): string {
  const whole = Math.floor(millionths / UNIT);
  let fraction = String(millionths % UNIT).padStart(6, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${whole}.${fraction}${currency !== undefined ? ` ${currency}` : ''}`;
}
