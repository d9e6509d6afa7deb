import type { ApiClient } from '../../api/http.js';
import { getPhoneNumber } from '../../api/numbers.js';

// The from-number's own cap (`settings.rateLimit`, messages per second as docs/decisions.md#throttling picks),
// read once before a bulk send. A service that does not show it, or a number the account cannot
// read, leaves the send uncapped: this is a courtesy to the service, not a check of the number.

export async function readNumberRateLimit(api: ApiClient, from: string, debug: (line: string) => void): Promise<number | undefined> {
  try {
    const number = await getPhoneNumber(api, from);
    const settings = (number as Record<string, unknown>)['settings'];
    const value = typeof settings === 'object' && settings !== null ? (settings as Record<string, unknown>)['rateLimit'] : undefined;
    const rate = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
    if (Number.isFinite(rate) && rate > 0) {
      debug(`${from} has settings.rateLimit ${rate}: at most ${rate} messages a second`);
      return rate;
    }
    debug(`${from} has no settings.rateLimit: no cap from the number`);
  } catch (error) {
    debug(`could not read ${from} for its rateLimit (${error instanceof Error ? error.message : String(error)}): no cap from the number`);
  }
  return undefined;
}
