// The country of a phone number (ISO 3166 alpha-2, `US`, `GB`), from libphonenumber-js's metadata:
// the calling code, and where several countries share one (+1, +7, +44) the leading digits of the
// national number. Loaded only by `svc send --prices`.
//
// Parsing costs some 30 µs a number; a send asks once per recipient, so the answer is kept per
// leading seven digits (a calling code and the first digits after it, which is as deep as the
// numbering plans divide countries that share a code), at most CACHE_LIMIT of them.

export type CountryOf = (e164: string) => string | undefined;

const KEY_LENGTH = 8; // `+` and seven digits
const CACHE_LIMIT = 200_000;

export async function loadCountryOf(): Promise<{ countryOf: CountryOf; isCountry(code: string): boolean }> {
  const { parsePhoneNumberFromString, isSupportedCountry } = await import('libphonenumber-js/min');
  const cache = new Map<string, string | undefined>();
  const countryOf: CountryOf = (e164) => {
    const key = e164.slice(0, KEY_LENGTH);
    if (cache.has(key)) return cache.get(key);
    const country = parsePhoneNumberFromString(e164)?.country;
    if (cache.size < CACHE_LIMIT) cache.set(key, country);
    return country;
  };
  return { countryOf, isCountry: (code) => isSupportedCountry(code) };
}
