import { describe, expect, it } from 'vitest';
import { PhoneNumberMap } from '../../src/send/phone-number-map.js';

describe('PhoneNumberMap', () => {
  it('stores and replaces values by number', () => {
    const map = new PhoneNumberMap();
    expect(map.get('+15550100001')).toBeUndefined();
    map.set('+15550100001', 7);
    map.set('+15550100001', 9);
    map.set('+447700900123', 0);
    expect(map.get('+15550100001')).toBe(9);
    expect(map.get('+447700900123')).toBe(0);
    expect(map.has('+447700900123')).toBe(true);
    expect(map.has('+447700900124')).toBe(false);
    expect(map.size).toBe(2);
  });

  it('keeps the longest E.164 numbers apart (15 digits fit a float64 exactly)', () => {
    const map = new PhoneNumberMap();
    map.set('+999999999999999', 1);
    map.set('+999999999999998', 2);
    map.set('+100000000000000', 3);
    expect(map.get('+999999999999999')).toBe(1);
    expect(map.get('+999999999999998')).toBe(2);
    expect(map.get('+100000000000000')).toBe(3);
  });

  it('keeps strings that are not E.164 in a side map', () => {
    const map = new PhoneNumberMap();
    map.set('not a number', 1);
    map.set('+0123456789', 2);
    map.set('+15550100001', 3);
    expect(map.get('not a number')).toBe(1);
    expect(map.get('+0123456789')).toBe(2);
    // '+0123456789' and '+123456789' must not collide on their digits.
    expect(map.get('+123456789')).toBeUndefined();
    expect(map.size).toBe(3);
  });

  it('keeps every string as it was given, E.164 or a near miss, each apart from the others', () => {
    const strings = [
      '+12345678', // 8 digits: the shortest E.164
      '+1234567', // 7: too short
      '+123456789012345', // 15: the longest
      '+1234567890123456', // 16: too long
      '+012345678', // a leading 0 would share the digits of the next
      '+12345678 ',
      ' +12345678',
      '12345678',
      '+1234/5678',
      '+1234:5678',
      '+１2345678', // a full-width digit
      '+',
      '',
    ];
    const map = new PhoneNumberMap();
    strings.forEach((s, i) => map.set(s, i));
    expect(map.size).toBe(strings.length);
    strings.forEach((s, i) => expect(map.get(s)).toBe(i));
    const seen: string[] = [];
    map.forEach((number) => seen.push(number));
    expect(seen.sort()).toEqual([...strings].sort());
  });

  it('grows past its initial capacity without losing anything', () => {
    const map = new PhoneNumberMap();
    const total = 50_000;
    for (let i = 0; i < total; i++) map.set(`+1555${String(i).padStart(7, '0')}`, i);
    expect(map.size).toBe(total);
    for (let i = 0; i < total; i += 7) expect(map.get(`+1555${String(i).padStart(7, '0')}`)).toBe(i);
    let sum = 0;
    let visited = 0;
    map.forEachValue((v) => {
      sum += v;
      visited++;
    });
    expect(visited).toBe(total);
    expect(sum).toBe((total * (total - 1)) / 2);
  });

  it('makes room for a guessed size at once, and keeps growing past a guess that was short', () => {
    const map = new PhoneNumberMap();
    map.set('+15550000001', 1);
    map.reserve(20_000);
    for (let i = 0; i < 60_000; i++) map.set(`+1666${String(i).padStart(7, '0')}`, i);
    expect(map.get('+15550000001')).toBe(1);
    expect(map.size).toBe(60_001);
    for (let i = 0; i < 60_000; i += 11) expect(map.get(`+1666${String(i).padStart(7, '0')}`)).toBe(i);
    expect(map.get('+16660060000')).toBeUndefined();
  });

  it('forgets everything on clear, and is usable again', () => {
    const map = new PhoneNumberMap();
    for (let i = 0; i < 5000; i++) map.set(`+1777${String(i).padStart(7, '0')}`, i);
    map.set('not a number', 3);
    map.clear();
    expect(map.size).toBe(0);
    expect(map.get('+17770000001')).toBeUndefined();
    expect(map.get('not a number')).toBeUndefined();
    map.set('+17770000001', 5);
    expect(map.get('+17770000001')).toBe(5);
  });
});
