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

/** A --budget: millionths, and the currency it was written with (`250 USD`, `USD 250`), if any. */
export interface Budget {
  amount: number;
  currency?: string;
}

/** `--budget AMOUNT`: a positive amount, in the currency of --prices (which a currency code given with it must be). */
export function parseBudget(text: string): Budget {
  const currency = /^\s*([A-Za-z]{3})\s+|\s+([A-Za-z]{3})\s*$/.exec(text);
  const amount = parseAmount(text.replace(/^\s*[A-Za-z]{3}\s+|\s+[A-Za-z]{3}\s*$/g, ''));
  if (amount === undefined || amount === 0) {
    throw new UsageError(`--budget must be a positive amount such as 250 or 99.50 (at most six decimals), not "${text}"`);
  }
  const code = currency?.[1] ?? currency?.[2];
  return code === undefined ? { amount } : { amount, currency: code.toUpperCase() };
}

/**
 * The budget in the prices' currency: one written in another currency (or in one when the prices
 * name none) would be read as a different sum of money, so it is refused.
 */
export function budgetIn(budget: Budget, text: string, prices: { path: string; currency: string | undefined }): number {
  if (budget.currency === undefined || budget.currency === prices.currency) return budget.amount;
  throw new UsageError(
    prices.currency === undefined
      ? `--budget "${text}" is in ${budget.currency}, but ${prices.path} names no currency: give the budget as a plain amount, or the currency in a third column of the prices`
      : `--budget "${text}" is in ${budget.currency}, but the prices in ${prices.path} are in ${prices.currency}: give the budget in ${prices.currency}`,
  );
}

/** `12.50`, `0.0079`: at least two decimals, more only when the amount has them. */
export function formatAmount(millionths: number, currency: string | undefined): string {
  const whole = Math.floor(millionths / UNIT);
  let fraction = String(millionths % UNIT).padStart(6, '0').replace(/0+$/, '');
  if (fraction.length < 2) fraction = fraction.padEnd(2, '0');
  return `${whole}.${fraction}${currency !== undefined ? ` ${currency}` : ''}`;
}
