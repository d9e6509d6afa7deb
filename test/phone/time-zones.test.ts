import { describe, expect, it } from 'vitest';
import { loadTimeZones, readFlatBson } from '../../src/phone/time-zones.js';
import { loadCountryOf } from '../../src/phone/country.js';

describe('time zones of a number, from libphonenumber\'s data', () => {
  it('tells the zone from the country and, for +1, the area code', async () => {
    const zonesOf = await loadTimeZones();
    expect(zonesOf('+12125551234')).toEqual(['America/New_York']);
    expect(zonesOf('+17735551234')).toEqual(['America/Chicago']);
    expect(zonesOf('+13035551234')).toEqual(['America/Denver']);
    expect(zonesOf('+13105551234')).toEqual(['America/Los_Angeles']);
    expect(zonesOf('+16025551234')).toEqual(['America/Phoenix']);
    expect(zonesOf('+18085551234')).toEqual(['Pacific/Honolulu']);
    expect(zonesOf('+442079460958')).toEqual(['Europe/London']);
    expect(zonesOf('+4930123456')).toEqual(['Europe/Berlin']);
    // A number that could be anywhere in its country (a toll-free +1 number) has many zones.
    expect((zonesOf('+18005551234') ?? []).length).toBeGreaterThan(10);
  });

  it('reads a flat BSON document of strings, and refuses anything else', () => {
    const member = (name: string, value: string): Buffer => {
      const length = Buffer.alloc(4);
      length.writeInt32LE(Buffer.byteLength(value) + 1, 0);
      return Buffer.concat([Buffer.from([0x02]), Buffer.from(name), Buffer.from([0]), length, Buffer.from(value), Buffer.from([0])]);
    };
    const members = Buffer.concat([member('1', 'America/New_York&America/Chicago'), member('44', 'Europe/London')]);
    const doc = Buffer.concat([Buffer.alloc(4), members, Buffer.from([0])]);
    doc.writeInt32LE(doc.length, 0);
    expect([...readFlatBson(doc)]).toEqual([
      ['1', 'America/New_York&America/Chicago'],
      ['44', 'Europe/London'],
    ]);
    const bad = Buffer.from(doc);
    bad[4] = 0x10;
    expect(() => readFlatBson(bad)).toThrow(/type 16/);
  });
});

describe('the country of a number', () => {
  it('is the ISO code libphonenumber gives, shared calling codes told apart', async () => {
    const { countryOf, isCountry } = await loadCountryOf();
    expect(countryOf('+14165551234')).toBe('CA');
    expect(countryOf('+12125551234')).toBe('US');
    expect(countryOf('+442079460958')).toBe('GB');
    expect(countryOf('+4930123456')).toBe('DE');
    expect(countryOf('+77012345678')).toBe('KZ');
    expect(isCountry('US')).toBe(true);
    expect(isCountry('XX')).toBe(false);
  });
});
