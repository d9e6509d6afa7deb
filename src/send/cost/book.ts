import type { SmsEncoding } from '../../domain/segments.js';
import { priceOf, type PriceList } from './prices.js';

// What a send costs by country, as its messages are counted: recipients and segments per country,
// times that country's price per segment (or the `*` price). Recipients whose country has no
// price are counted apart: a budget cannot be kept over a cost that is not known.

export interface CountryCost {
  country: string;
  recipients: number;
  segments: number;
  /** Millionths per segment. */
  price: number;
  /** Millionths. */
  amount: number;
}

export interface CostSummary {
  currency: string | undefined;
  /** Millionths, over every priced recipient. */
  total: number;
  byCountry: CountryCost[];
  unpriced: { recipients: number; countries: string[] };
}

export class CostBook {
  private readonly countries = new Map<string, CountryCost>();
  private readonly unpricedCountries = new Set<string>();
  private unpricedRecipients = 0;

  constructor(readonly prices: PriceList) {}

  /** Prices one message of `segments` to `to`; returns its cost in millionths, or undefined when unpriced. */
  add(to: string, segments: number): number | undefined {
    const { country, price } = priceOf(this.prices, to);
    if (price === undefined) {
      this.unpricedRecipients++;
      this.unpricedCountries.add(country ?? 'unknown');
      return undefined;
    }
    const key = country ?? 'unknown';
    let entry = this.countries.get(key);
    if (entry === undefined) this.countries.set(key, (entry = { country: key, recipients: 0, segments: 0, price, amount: 0 }));
    entry.recipients++;
    entry.segments += segments;
    entry.amount += segments * price;
    return segments * price;
  }

  summary(): CostSummary {
    const byCountry = [...this.countries.values()].sort((a, b) => b.amount - a.amount || (a.country < b.country ? -1 : 1));
    return {
      currency: this.prices.currency,
      total: byCountry.reduce((sum, entry) => sum + entry.amount, 0),
      byCountry,
      unpriced: { recipients: this.unpricedRecipients, countries: [...this.unpricedCountries].sort() },
    };
  }
}

/** Segments by encoding over all recipients. */
export type EncodingCounts = Record<SmsEncoding, { messages: number; segments: number }>;
