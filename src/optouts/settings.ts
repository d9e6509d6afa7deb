import type { ApiClient } from '../api/http.js';
import { getPhoneNumber } from '../api/numbers.js';
import type { ConsentSettings } from './keywords.js';

/** A number's optOut and optIn settings, as the service shows them (absent groups are undefined). */
export async function readConsentSettings(api: ApiClient, number: string): Promise<ConsentSettings> {
  const answer = (await getPhoneNumber(api, number)) as Record<string, unknown>;
  const settings = answer['settings'];
  if (typeof settings !== 'object' || settings === null) return {};
  const group = (name: string): ConsentSettings['optOut'] => {
    const value = (settings as Record<string, unknown>)[name];
    return typeof value === 'object' && value !== null ? (value as ConsentSettings['optOut']) : undefined;
  };
  return { optOut: group('optOut'), optIn: group('optIn') };
}
