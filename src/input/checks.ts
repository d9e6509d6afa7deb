import { UsageError } from '../errors.js';
import { isE164, isGuid } from '../domain/api/patterns.js';

// A value given for a flag, checked: the value itself, or a usage error (exit 2) naming the flag
// (`what`) and the bad value. Shared by the commands and the send pipeline.

export function requireGuid(value: string, what: string): string {
  if (!isGuid(value)) throw new UsageError(`${what} must be a GUID (like 3f2504e0-4f89-11d3-9a0c-0305e82c3301), not "${value}"`);
  return value;
}

export function requireE164(value: string, what: string): string {
  if (!isE164(value.trim())) {
    throw new UsageError(`${what} "${value}" is not an E.164 number (a + then 8 to 15 digits, the first not 0, e.g. +15551234567)`);
  }
  return value.trim();
}
