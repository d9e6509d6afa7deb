import { countSegments } from '../../domain/segments.js';
import { priceOf, type PriceList } from './prices.js';

// --budget: the most a run may spend. Each request is priced before it is launched (its text's
// segments times the price for its recipient's country); the first one that would take the
// spending past the budget is not launched, nor anything after it. What a resumed run finds
// already accepted (or of unknown outcome: the service may have billed it) counts as spent, so
// that `--resume --budget MORE` is a larger budget for the whole run, not a second one.

export interface BudgetStop {
  /** The recipient whose message would have passed the budget. */
  to: string;
  /** Millionths spent (priced) when the run stopped launching. */
  spent: number;
  /** What that next message would have cost. */
  next: number;
  budget: number;
}

export class BudgetGate {
  /** Millionths of the requests launched by this run, and of those an earlier run sent. */
  spent = 0;
  /** Of `spent`: what the journal shows was sent before this run. */
  spentBefore = 0;
  stop: BudgetStop | undefined;
  /** Recipients not launched because of the budget. */
  held = 0;
  /** Told once, when the budget stops the run (the journal records where). */
  onStop: ((stop: BudgetStop) => void) | undefined;

  constructor(
    readonly budget: number,
    private readonly prices: PriceList,
  ) {}

  private cost(to: string, text: string): number {
    // Unpriced recipients are refused before the run starts; a price is there.
    return countSegments(text).segments * (priceOf(this.prices, to).price ?? 0);
  }

  /** A recipient an earlier run sent (or may have): its message counts as spent. */
  sentBefore(to: string, text: string): void {
    const cost = this.cost(to, text);
    this.spent += cost;
    this.spentBefore += cost;
  }

  /** True when the message may be launched (and its cost is counted); false once the budget stops the run. */
  admits(to: string, text: string): boolean {
    if (this.stop !== undefined) {
      this.held++;
      return false;
    }
    const cost = this.cost(to, text);
    if (this.spent + cost > this.budget) {
      this.stop = { to, spent: this.spent, next: cost, budget: this.budget };
      this.held++;
      this.onStop?.(this.stop);
      return false;
    }
    this.spent += cost;
    return true;
  }
}
