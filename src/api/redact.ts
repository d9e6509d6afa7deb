// Redaction for the --debug trace: secrets by name in JSON bodies, and known secret values
// wherever they appear.

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

/** Replaces every occurrence of each secret (and its Base64 and URL-encoded forms) in a line. */
export function redactText(line: string, secrets: readonly string[]): string {
  let out = line;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]) {
      if (form && out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}
