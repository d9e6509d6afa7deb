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

function decodeFormPart(part: string): string {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return part;
  }
}

/**
 * Redacts the values of secret-named fields of a form-encoded text (`user=a&password=b`). The
 * name is compared decoded, so `pass%77ord` or `api%5Fkey` is a secret's name too.
 */
function redactFormText(text: string): string | undefined {
  if (!/^[\w.%~*+-]+=[^\s&]*(&[\w.%~*+-]+(=[^\s&]*)?)*$/.test(text)) return undefined;
  return text
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals < 0) return pair;
      const value = pair.slice(equals + 1);
      return SECRET_KEY.test(decodeFormPart(pair.slice(0, equals))) && value !== '' ? `${pair.slice(0, equals)}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * Redacts secret-named fields of a JSON text or of a form-encoded one; any other text is
 * returned as is (known secret values are still hidden at the output boundary).
 */
export function redactJsonText(text: string): string {
  try {
    // A body may begin with a UTF-8 BOM (kept byte for byte by the event store): JSON.parse
    // refuses it, and a body it cannot parse would be shown unredacted.
    return JSON.stringify(redactValue(JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)));
  } catch {
    return redactFormText(text.trim()) ?? text;
  }
}

export function redactObject<T>(value: T): T {
  return redactValue(value) as T;
}

/**
 * A header value as a --debug trace shows it: credentials are never shown, whatever the header is
 * named. A cookie has no scheme word to keep, so all of it goes; of an Authorization, the scheme.
 */
export function traceHeaderValue(name: string, value: string): string {
  if (/^(cookie|set-cookie)$/i.test(name)) return REDACTED;
  if (/^(authorization|proxy-authorization)$/i.test(name)) return `${value.split(' ')[0] ?? ''} ${REDACTED}`;
  if (/^\s*(basic|bearer|digest)\s+\S/i.test(value)) return `${value.trim().split(/\s+/)[0]} ${REDACTED}`;
  return value;
}
