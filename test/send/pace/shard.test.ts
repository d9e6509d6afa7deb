import { describe, expect, it } from 'vitest';
import { inShard, numberHash, parseShard, shardOf } from '../../../src/send/pace/shard.js';

const numbers = Array.from({ length: 10_000 }, (_, i) => `+1555${String(2_000_000 + i * 7).padStart(7, '0')}`);

describe('--shard', () => {
  it('partitions 10,000 numbers exactly for N = 1..8, each shard a fair share', () => {
    for (let n = 1; n <= 8; n++) {
      const counts = new Array<number>(n).fill(0);
      const notOnce: string[] = [];
      for (const number of numbers) {
        const owners = [];
        for (let k = 1; k <= n; k++) if (inShard(number, { k, n })) owners.push(k);
        if (owners.length !== 1) notOnce.push(number);
        else counts[owners[0]! - 1]!++;
      }
      expect(notOnce).toEqual([]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(numbers.length);
      for (const count of counts) expect(Math.abs(count - numbers.length / n)).toBeLessThan((numbers.length / n) * 0.1);
    }
  });

  it('is a fixed function of the digits: the same on every machine, locale and time zone', () => {
    // Golden values: a change here moves recipients between shards of runs already under way.
    expect(numberHash('+14155551001')).toBe(numberHash('14155551001'));
    expect([numberHash('+14155551001'), numberHash('+447700900123'), numberHash('+4915112345678')]).toEqual([2703604519, 293374045, 3266679435]);
    expect(shardOf('+14155551001', 4)).toBe(GOLDEN['+14155551001']);
    expect(shardOf('+447700900123', 4)).toBe(GOLDEN['+447700900123']);
    expect(shardOf('+4915112345678', 4)).toBe(GOLDEN['+4915112345678']);
  });

  it('reads K/N and refuses anything else with exit 2', () => {
    expect(parseShard('2/4')).toEqual({ k: 2, n: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ k: 1, n: 1 });
    for (const bad of ['0/4', '5/4', '1/0', '2', 'a/b', '1/1001', '-1/4']) {
      expect(() => parseShard(bad)).toThrow(/--shard/);
    }
  });
});

const GOLDEN: Record<string, number> = { '+14155551001': 4, '+447700900123': 2, '+4915112345678': 4 };
