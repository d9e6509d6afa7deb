// Other bytes for the same JSON: what a receiver's framework hands over after it has parsed and
// written a body again. A receiver that verifies the raw bytes refuses each of these when they
// come with the signature of the original; one that verifies its own re-serialisation accepts
// some of them (JSON.parse then JSON.stringify undoes the spacing and the escapes).

export type Reserialisation = 'spaces' | 'key-order' | 'escapes';

/** The body as `kind` rewrites it; throws if the rewrite left the bytes as they were. */
export function reserialise(body: Buffer, kind: Reserialisation): Buffer {
  const value = JSON.parse(body.toString('utf8')) as unknown;
  const text = kind === 'spaces' ? JSON.stringify(value, null, 2) : kind === 'key-order' ? writeJson(reverseKeys(value)) : writeJson(value, escapeString);
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.equals(body)) throw new Error(`re-serialising by ${kind} left the body unchanged`);
  return bytes;
}

function reverseKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reverseKeys);
  if (typeof value !== 'object' || value === null) return value;
  const reversed: Record<string, unknown> = {};
  for (const key of Object.keys(value).reverse()) reversed[key] = reverseKeys((value as Record<string, unknown>)[key]);
  return reversed;
}

/** A string as JSON text with every character outside ASCII, and every slash, escaped. */
function escapeString(text: string): string {
  const quoted = JSON.stringify(text);
  let out = '';
  // By UTF-16 unit, so that a character outside the BMP becomes its two escaped surrogates.
  for (let i = 0; i < quoted.length; i++) {
    const code = quoted.charCodeAt(i);
    if (code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else if (code === 0x2f) out += '\\/';
    else out += quoted[i];
  }
  return out;
}

/** Compact JSON in the value's own key order, strings written by `string`. */
function writeJson(value: unknown, string: (text: string) => string = JSON.stringify): string {
  if (typeof value === 'string') return string(value);
  if (Array.isArray(value)) return `[${value.map((item) => writeJson(item, string)).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.entries(value).map(([key, item]) => `${string(key)}:${writeJson(item, string)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
