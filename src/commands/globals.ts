import { defineOptions } from './spec.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson'] as const;

/** Options every command takes, before or after its name. */
export const GLOBAL_OPTIONS = defineOptions([
  { flags: '--json', description: 'machine output: one JSON document on stdout (same as -o json)' },
  { flags: '-o, --output <format>', description: 'output format', choices: OUTPUT_FORMATS },
  { flags: '--profile <name>', description: 'use this profile (default: SVC_PROFILE, then the active profile)', complete: 'profile' },
  { flags: '--base-url <url>', description: "override the profile's base URL (default: SVC_BASE_URL)" },
  { flags: '--debug', description: 'trace HTTP requests and answers on stderr, secrets redacted' },
  { flags: '--no-color', description: 'no colour (also off for NO_COLOR or when not a TTY)' },
  { flags: '--timeout <seconds>', description: 'per-request timeout in seconds (default 30)' },
  { flags: '--fields <list>', description: 'only these fields (comma-separated, dotted paths such as settings.rateLimit) in tables, --json and ndjson' },
  { flags: '--no-pager', description: 'do not page long output on a terminal (default: SVC_PAGER, PAGER, then less -FRX)' },
  { flags: '-y, --yes', description: 'do not ask for confirmation (needed without a terminal by commands that confirm)' },
]);
