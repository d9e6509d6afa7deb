// The value patterns of the API, once: the CLI checks its input with them, the sandbox checks
// what it receives, the OpenAPI document states them.

/** E.164: a plus sign, then 8 to 15 digits, the first not 0. */
export const E164_PATTERN = /^\+[1-9]\d{7,14}$/;

export const GUID_PATTERN = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isE164(value: string): boolean {
  return E164_PATTERN.test(value);
}

export function isGuid(value: string): boolean {
  return GUID_PATTERN.test(value);
}
