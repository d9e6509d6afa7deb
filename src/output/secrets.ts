// The one registry of the secrets in play in a run, and the one redactor that every byte bound
// for stdout or stderr passes through (src/output/io.ts wraps both streams with it). A secret is
// registered the moment it is read: settings (the password, proxy credentials), secret flags
// (`--webhook-secret-stdin`, `--secret-env VAR`, basic-auth passwords). Each is known as is, in
// Base64 (standard, unpadded, URL-safe), as the Base64 of `user:password` an Authorization header
// carries, and as the Base64 of any longer text holding the secret (the three alignments of its
// bytes), so that a server that encodes a whole header block is caught too.
//
// Each of those forms is matched whatever escaping a JSON or URL encoder chose for any of its
// characters, one by one: `\u00eb` or `\u00EB` (Python's json.dumps escapes everything past
// ASCII), a surrogate pair `\ud83d\ude00` for a character past the BMP, the short escapes (`\"`,
// `\\`, `\/`, `\n` ...), percent-encoded UTF-8 in either letter case (`%C3%AB`, `%c3%ab`) and
// `+` for a space (form encoding). Encoders differ in which characters they escape (JavaScript
// leaves `é` alone, Python escapes it; encodeURIComponent leaves `!'()*` alone, a form encoder
// does not), so the pattern lets every character take any of its forms rather than listing whole
// encodings.

export const REDACTED = '[REDACTED]';

/** Raw forms shorter than this are not redacted (a two-letter secret would eat every word). */
const MIN_RAW = 4;
/** Base64 fragments shorter than this could match an id by chance. */
const MIN_FRAGMENT = 8;

function base64Forms(bytes: Buffer): string[] {
  const standard = bytes.toString('base64');
  return [standard, standard.replace(/=+$/, ''), bytes.toString('base64url')];
}

const JSON_SHORT_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '/': '\\/', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Hex digits that match in either letter case: `e9` as `[eE]9`. */
function hexEitherCase(hex: string): string {
  return hex.replace(/[a-f]/g, (d) => `[${d}${d.toUpperCase()}]`);
}

/** `\\u00e9` for one UTF-16 code unit, hex in either case. */
function jsonUnitEscape(unit: number): string {
  return `\\\\u${hexEitherCase(unit.toString(16).padStart(4, '0'))}`;
}

/**
 * A regular expression for one character (a code point) in any of the forms an encoder may give it:
 * itself, `\uXXXX` (a surrogate pair of them past the BMP), a JSON short escape, its UTF-8 bytes
 * percent-encoded, and `+` for a space.
 */
function characterPattern(character: string): string {
  const options = new Set<string>([literal(character)]);
  const units = [...Array(character.length).keys()].map((i) => character.charCodeAt(i));
  options.add(units.map(jsonUnitEscape).join(''));
  const short = JSON_SHORT_ESCAPES[character];
  if (short !== undefined) options.add(literal(short));
  options.add([...Buffer.from(character, 'utf8')].map((byte) => `%${hexEitherCase(byte.toString(16).padStart(2, '0'))}`).join(''));
  if (character === ' ') options.add('\\+');
  return options.size === 1 ? [...options][0]! : `(?:${[...options].join('|')})`;
}

/** A form as a pattern that matches it under any JSON or URL escaping of any of its characters. */
function escapedFormPattern(form: string): string {
  let pattern = '';
  for (const character of form) pattern += characterPattern(character);
  return pattern;
}

/**
 * The Base64 characters that depend only on the secret's bytes when the secret sits at byte
 * offset 0, 1 or 2 (mod 3) of a longer encoded text.
 */
function base64Fragments(secret: Buffer): string[] {
  const out: string[] = [];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), secret]).toString('base64');
    const first = Math.ceil((8 * offset) / 6);
    const last = Math.floor((8 * (offset + secret.length) - 6) / 6);
    const fragment = encoded.slice(first, last + 1);
    if (fragment.length >= MIN_FRAGMENT) {
      out.push(fragment, fragment.replace(/\+/g, '-').replace(/\//g, '_'));
    }
  }
  return out;
}

export class SecretRegistry {
  private readonly forms = new Set<string>();
  private pattern: RegExp | undefined;
  /** The forms as they are, for a text that holds no escape (see redact). */
  private plainPattern: RegExp | undefined;
  /** True when a form has a space, which a form encoder may have written as `+`. */
  private spaced = false;
  private dirty = false;

  /**
   * `publicWords`: values that are published, not secret (the sandbox's documented default
   * password, given by the caller), which are also words ordinary messages use: their raw forms are
   * left alone, their Base64 forms (in an Authorization header) are still hidden.
   */
  constructor(private readonly publicWords: readonly string[] = []) {}

  /** A secret value (a password, a webhook secret, a proxy password). */
  add(secret: string | undefined | null): void {
    if (secret === undefined || secret === null || secret === '') return;
    const bytes = Buffer.from(secret, 'utf8');
    if (secret.length >= MIN_RAW && !this.publicWords.includes(secret)) {
      this.addForm(secret);
      for (const form of base64Forms(bytes)) this.addForm(form);
    }
    for (const fragment of base64Fragments(bytes)) this.addForm(fragment);
  }

  /** Basic credentials: the password, and `user:password` as an Authorization header encodes it. */
  addCredentials(username: string | undefined, password: string | undefined): void {
    if (!password) return;
    this.add(password);
    for (const pair of [`${username ?? ''}:${password}`, `:${password}`]) {
      for (const form of base64Forms(Buffer.from(pair, 'utf8'))) this.addForm(form);
    }
  }

  /** The userinfo of a URL (a proxy's), both decoded and as written. */
  addUrlCredentials(text: string | undefined): void {
    if (!text) return;
    const match = /^[a-z][a-z0-9+.-]*:\/\/([^/@?#]*)@/i.exec(text.trim()) ?? /^([^/@?#]*)@/.exec(text.trim());
    if (!match) return;
    const [user = '', pass = ''] = match[1]!.split(':', 2) as [string?, string?];
    const decode = (s: string): string => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    if (pass !== '') {
      this.addForm(pass);
      this.addCredentials(decode(user), decode(pass));
    } else if (user !== '') this.add(decode(user));
  }

  private addForm(form: string): void {
    if ([...form].length < MIN_RAW || this.forms.has(form)) return;
    this.forms.add(form);
    this.dirty = true;
  }

  get size(): number {
    return this.forms.size;
  }

  redact(text: string): string {
    if (this.forms.size === 0 || text === '') return text;
    if (this.dirty || this.pattern === undefined || this.plainPattern === undefined) {
      // Longest first, so that a secret inside a longer registered form goes with the whole form.
      const sorted = [...this.forms].sort((a, b) => b.length - a.length);
      this.pattern = new RegExp(sorted.map(escapedFormPattern).join('|'), 'g');
      this.plainPattern = new RegExp(sorted.map(literal).join('|'), 'g');
      this.spaced = sorted.some((form) => form.includes(' '));
      this.dirty = false;
    }
    // Every escaped form of a character begins with a backslash or a percent sign, or is a plus
    // for a space: a text with none of them can only hold the forms as they are, which the plain
    // pattern finds alike. Most output lines are such, and the escaped pattern is large: V8
    // compiled it in some 20 ms, which every send paid on its first line, and scanned more slowly.
    const escaped = text.includes('\\') || text.includes('%') || (this.spaced && text.includes('+'));
    const pattern = escaped ? this.pattern : this.plainPattern;
    pattern.lastIndex = 0;
    return pattern.test(text) ? text.replace(pattern, REDACTED) : text;
  }
}

/** Secrets found in the environment before anything runs. */
const ENV_SECRETS = ['SVC_PASSWORD', 'SVC_WEBHOOK_SECRET'];
const PROXY_VARIABLES = ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'ALL_PROXY', 'all_proxy'];
/** Flags whose value names an environment variable that holds a secret. */
const SECRET_ENV_FLAGS = ['--secret-env', '--webhook-secret-env', '--basic-auth-env', '--webhook-basic-auth-password-env'];

export function registerEnvironmentSecrets(registry: SecretRegistry, env: Readonly<Record<string, string | undefined>>, argv: readonly string[] = []): void {
  for (const name of ENV_SECRETS) registry.add(env[name]);
  if (env['SVC_PASSWORD']) registry.addCredentials(env['SVC_USERNAME'], env['SVC_PASSWORD']);
  for (const name of PROXY_VARIABLES) registry.addUrlCredentials(env[name]);
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    for (const flag of SECRET_ENV_FLAGS) {
      let variable: string | undefined;
      if (arg === flag) variable = argv[i + 1];
      else if (arg.startsWith(`${flag}=`)) variable = arg.slice(flag.length + 1);
      if (variable === undefined) continue;
      const value = env[variable];
      // `--basic-auth-env` holds `user:password`.
      if (value !== undefined && value.includes(':') && flag.includes('basic-auth')) {
        const colon = value.indexOf(':');
        registry.addCredentials(value.slice(0, colon), value.slice(colon + 1));
      }
      registry.add(value);
    }
  }
}
