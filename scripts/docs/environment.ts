// The environment variables svc reads, for the ENVIRONMENT section of svc(1) and the reference's
// index. test/docs/reference.test.ts fails when src/ or bin/ reads an SVC_ variable this list
// does not explain.

export interface EnvironmentRow {
  /** One name, or several that work together (`HTTPS_PROXY, HTTP_PROXY`). */
  names: readonly string[];
  meaning: string;
}

export const ENVIRONMENT: readonly EnvironmentRow[] = [
  { names: ['SVC_PROFILE'], meaning: 'the profile to use when `--profile` is not given (else the active profile)' },
  { names: ['SVC_BASE_URL'], meaning: "the service's base URL, over the profile's (`--base-url` is over both)" },
  { names: ['SVC_USERNAME', 'SVC_PASSWORD'], meaning: 'the account and its password; with `SVC_BASE_URL` as well, no profile is needed (the way to run in CI)' },
  { names: ['SVC_TENANT'], meaning: "the tenant of the commands that need one, over the profile's default (`--tenant` is over both)" },
  { names: ['SVC_CONFIG_DIR'], meaning: 'the directory of the profile store, `config.json` (default: `$XDG_CONFIG_HOME/svc`, `~/.config/svc`)' },
  { names: ['SVC_DATA_DIR'], meaning: 'the data directory, whose `events/` is the event store (default: `$XDG_DATA_HOME/svc`, `~/.local/share/svc`)' },
  { names: ['SVC_NO_STORE'], meaning: 'when set (and not `0`), `svc send` records nothing in the event store (as `--no-store`)' },
  { names: ['SVC_ORDER_POLL_MS'], meaning: 'the first poll interval, in milliseconds, of `--wait`, `order watch` and `message watch` without `--interval`' },
  { names: ['SVC_WEBHOOK_SECRET'], meaning: 'the webhook secret of `webhook sign`, `verify` and `listen` and `events replay` when `--secret-env` names no other variable' },
  { names: ['SVC_PAGER', 'PAGER'], meaning: 'the pager for output taller than the terminal (default `less -FRX`); `SVC_PAGER=cat` turns paging off, as `--no-pager` does' },
  { names: ['NO_COLOR'], meaning: 'when set, no colour (as `--no-color`)' },
  { names: ['CI'], meaning: 'when set (and not `false`), nothing is asked: a missing value is an error naming its flag' },
  { names: ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY'], meaning: 'the proxy for `https://` and `http://` requests, and the hosts that bypass it, read as curl reads them (either letter case); loopback never goes through a proxy' },
  { names: ['NODE_EXTRA_CA_CERTS'], meaning: 'a file of extra certificate authorities to trust (a private CA)' },
  { names: ['SVC_COMPILE_CACHE'], meaning: 'where Node 20 keeps the compiled code of `svc` between runs (default `~/.cache/svc`); `0` turns the cache off' },
];

/** Variables read in the source that are not for users: a test reads them, or one part of svc sets them for another. */
export const INTERNAL_VARIABLES: ReadonlyMap<string, string> = new Map([
  ['SVC_SANDBOX_EXCHANGE_LOG', "for this project's tests only (docs/sandbox.md says why)"],
  ['SVC_DEMO_WEBHOOK_SECRET', 'set by `svc demo` for its own listener'],
]);
