import { UsageError } from '../../errors.js';

// --shard K/N: this run sends only the recipients whose number hashes to shard K of N, so that N
// jobs (a CI matrix) share one list, each with its own journal, and no recipient is in two.
//
// The hash must be the same on every machine, run, locale and time zone: FNV-1a (32 bits) over
// the number's digits (the E.164 number without its plus sign), finished with MurmurHash3's
// 32-bit mixer so that the low bits that `mod N` keeps depend on every digit. Pure integer
// arithmetic (Math.imul), no locale, no platform hash.

export interface Shard {
  /** 1-based. */
  k: number;
  n: number;
}

export const MAX_SHARDS = 1000;

export function parseShard(value: string): Shard {
  const match = /^\s*(\d{1,4})\s*\/\s*(\d{1,4})\s*$/.exec(value);
  const k = match ? Number(match[1]) : NaN;
  const n = match ? Number(match[2]) : NaN;
  if (!match || n < 1 || n > MAX_SHARDS || k < 1 || k > n) {
    throw new UsageError(`--shard "${value}" is not K/N with 1 <= K <= N <= ${MAX_SHARDS} (for example --shard 2/4)`);
  }
  return { k, n };
}

export function numberHash(e164: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < e164.length; i++) {
    const code = e164.charCodeAt(i);
    if (code < 0x30 || code > 0x39) continue;
    hash ^= code;
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** The shard (1..n) a number belongs to. */
export function shardOf(e164: string, n: number): number {
  return (numberHash(e164) % n) + 1;
}

export function inShard(e164: string, shard: Shard | undefined): boolean {
  return shard === undefined || shard.n === 1 || shardOf(e164, shard.n) === shard.k;
}
