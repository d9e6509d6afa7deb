import { UsageError } from '../../errors.js';
import { readCsv } from '../../input/csv.js';
import type { CountryOf } from '../../phone/country.js';
import { parseAmount } from './money.js';

// --prices FILE: what one segment costs, by the recipient's country. A CSV of
// `country,price_per_segment[,currency]` (a header row is allowed), a country as its ISO 3166
// code (US, GB) and `*` for every country not listed. One currency for the whole file: a total
// of dollars and euros is no amount. Every bad line is named (FILE:LINE), exit 2, before anything
// is sent.

export const REST = '*';

export interface PriceList {
  path: string;
  currency: string | undefined;
  /** Millionths per segment by country; REST for the others. */
  prices: ReadonlyMap<string, number>;
  /** The country of a recipient (libphonenumber), loaded for this list. */
  countryOf: CountryOf;
}

export interface Priced {
  /** The country the price was looked up by (REST when it came from `*`), or undefined. */
  country: string | undefined;
  /** Millionths per segment, or undefined when no price applies. */
  price: number | undefined;
}

export function priceOf(list: PriceList, e164: string): Priced {
  const country = list.countryOf(e164);
  const own = country !== undefined ? list.prices.get(country) : undefined;
  if (own !== undefined) return { country, price: own };
  const rest = list.prices.get(REST);
  return { country: country ?? 'unknown', price: rest };
}

export async function readPriceList(path: string, content: string): Promise<PriceList> {
  const { loadCountryOf } = await import('../../phone/country.js');
  const { countryOf, isCountry } = await loadCountryOf();
  const records = readCsv(content.charCodeAt(0) === 0xfeff ? content.slice(1) : content);
  const problems: string[] = [];
  const prices = new Map<string, number>();
  const lines = new Map<string, number>();
  let currency: { code: string; line: number } | undefined;
  let first = true;
  for (const record of records) {
    const at = `${path}:${record.line}`;
    if (record.error !== undefined) {
      problems.push(`${at}: ${record.error}`);
      continue;
    }
    const [countryText = '', priceText = '', currencyText = '', ...extra] = record.fields.map((field) => field.trim());
    // A header: a first row whose first field is neither a country code nor `*`.
    if (first && countryText !== REST && !/^[A-Za-z]{2}$/.test(countryText)) {
      first = false;
      continue; // the header
    }
    first = false;
    if (extra.some((field) => field !== '')) {
      problems.push(`${at}: ${record.fields.length} fields; a line is country,price_per_segment[,currency]`);
      continue;
    }
    const country = countryText === REST ? REST : countryText.toUpperCase();
    if (country !== REST && !isCountry(country)) {
      problems.push(`${at}: "${countryText}" is not a country code (ISO 3166 alpha-2, such as US or GB, or * for every other country)`);
      continue;
    }
    const price = parseAmount(priceText);
    if (price === undefined) {
      problems.push(`${at}: "${priceText}" is not a price per segment (a decimal such as 0.0079, at most six decimals)`);
      continue;
    }
    if (currencyText !== '') {
      if (!/^[A-Za-z]{3}$/.test(currencyText)) {
        problems.push(`${at}: "${currencyText}" is not a currency code (three letters, such as USD)`);
        continue;
      }
      const code = currencyText.toUpperCase();
      if (currency === undefined) currency = { code, line: record.line };
      else if (currency.code !== code) {
        problems.push(`${at}: ${code}, where line ${currency.line} says ${currency.code}: give every price in one currency`);
        continue;
      }
    }
    const seen = lines.get(country);
    if (seen !== undefined) {
      problems.push(`${at}: ${country === REST ? '*' : country} is priced again (first on line ${seen})`);
      continue;
    }
    lines.set(country, record.line);
    prices.set(country, price);
  }
  if (problems.length === 0 && prices.size === 0) problems.push(`${path}: no prices in the file (lines of country,price_per_segment[,currency])`);
  if (problems.length > 0) {
    const more = problems.slice(1, 10);
    if (problems.length > 10) more.push(`... and ${problems.length - 10} more problems`);
    throw new UsageError(`--prices ${problems[0]!}`, more);
  }
  return { path, currency: currency?.code, prices, countryOf };
}
