// JSON text of strings without JSON.stringify where none of its escaping is needed: phone
// numbers, message ids, statuses and ISO times, written a few times for every request of a bulk
// send (the journal's records, the event store's sent: records). The text is exactly what
// JSON.stringify writes (test/send/journal.test.ts checks every UTF-16 code unit).

/**
 * A string as JSON text, as JSON.stringify writes it: quoted as it is when it holds no quote,
 * backslash, control character or surrogate (a tenth of JSON.stringify's cost for a short
 * string), else through JSON.stringify.
 */
export function jsonString(value: string): string {
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) return JSON.stringify(value);
  }
  return `"${value}"`;
}

/** A list of strings as JSON text (a request's recipients), as JSON.stringify writes it. */
export function jsonStrings(values: readonly string[]): string {
  if (values.length === 1) return `[${jsonString(values[0]!)}]`;
  let text = '[';
  for (let i = 0; i < values.length; i++) text += `${i === 0 ? '' : ','}${jsonString(values[i]!)}`;
  return `${text}]`;
}
