// Redaction of secret-NAMED fields in JSON bodies for the --debug trace (a secret the run does
// not know, such as a password a server sends back). Known secret VALUES are redacted at the
// output boundary, for everything printed, by the one registry in src/output/secrets.ts.

const SECRET_KEY = /(password|secret|authorization|token|apikey|api_key)/i;
export const REDACTED = '[REDACTED]';

function redactValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactValue);
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value as Record<string, unknown>)) {
      out[key] = SECRET_KEY.test(key) && inner !== null && inner !== '' ? REDACTED : redactValue(inner);
    }
    return out;
  }
  return value;
}

/** Redacts secret-named fields of a JSON text; a text that is not JSON is returned as is. */
export function redactJsonText(text: string): string {
  try {
    return JSON.stringify(redactValue(JSON.parse(text)));
  } catch {
    return text;
  }
}

export function redactObject<T>(value: T): T {
  return redactValue(value) as T;
}
