// Reading an answer's body: JSON when it looks like JSON, and whether it was broken.

/** The JSON of a body, when it looks like JSON; `invalid` when it looked like JSON and did not parse. */
export function parseBody(text: string, contentType: string | undefined): { data: unknown; invalid: boolean } {
  // The usual answer, a JSON object: parsed without a trimmed copy and a regular expression first.
  if (text.charCodeAt(0) === 0x7b) return parseJson(text);
  if (text.trim() === '') return { data: undefined, invalid: false };
  const looksJson = (contentType ?? '').includes('json') || /^\s*[[{"]/.test(text);
  if (!looksJson) return { data: undefined, invalid: false };
  return parseJson(text);
}

function parseJson(text: string): { data: unknown; invalid: boolean } {
  try {
    return { data: JSON.parse(text) as unknown, invalid: false };
  } catch {
    return { data: undefined, invalid: true };
  }
}
