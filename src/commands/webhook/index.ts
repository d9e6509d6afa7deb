import { defineCommands, defineOption, type GroupSpec } from '../spec.js';
import { DEFAULT_LISTEN_PORT, DEFAULT_SECRET_ENV } from '../defaults.js';

export const webhookGroup: GroupSpec = { name: 'webhook', summary: 'sign, verify and receive webhook events locally, and check your receiver' };


const secretEnvOption = defineOption({
  flags: '--secret-env <var>',
  description: `environment variable holding the webhook secret (default ${DEFAULT_SECRET_ENV}); never pass the secret itself`,
});

const bodyFileOption = defineOption({
  flags: '--body-file <file>',
  description: 'the raw body to sign or check, byte for byte (default: standard input)',
  complete: 'file',
});

export const webhookCommands = defineCommands([
  {
    path: ['webhook', 'sign'],
    summary: 'print the X-Svc-Signature of a body (Base64 HMAC-SHA256 of its raw bytes)',
    description: 'The secret is read from an environment variable, never from the command line.',
    options: [secretEnvOption, bodyFileOption],
    examples: [
      'SVC_WEBHOOK_SECRET=... svc webhook sign --body-file event.json',
      'printf %s \'{"orderId":1}\' | svc webhook sign --secret-env TENANT_A_SECRET',
    ],
    exitCodes: [],
    load: () => import('./sign.js'),
  },
  {
    path: ['webhook', 'verify'],
    summary: 'check an X-Svc-Signature against a body: prints valid (exit 0) or invalid (exit 1)',
    description:
      'Several comma-separated variables in --secret-env check against each secret in turn (current, then previous, during rotation).',
    options: [
      secretEnvOption,
      { flags: '--signature <sig>', description: 'the X-Svc-Signature value received (Base64)' },
      bodyFileOption,
    ],
    examples: [
      'svc webhook verify --signature "CNQjvO4LdNZLScJ6S6Voqx7QvC9itgBESwy49NA/bes=" --body-file event.json',
      'svc webhook verify --secret-env NEW_SECRET,OLD_SECRET --signature "$SIG" < event.json',
    ],
    exitCodes: [[1, 'the signature does not match: invalid']],
    load: () => import('./verify.js'),
  },
  {
    path: ['webhook', 'listen'],
    summary: 'receive webhook events locally, check them and print each one',
    description: [
      'Each POST is checked like a production receiver would: Basic auth when --basic-auth-env is set,',
      'application/json, at most 1 MB, X-Svc-Signature, valid JSON. Without a secret, on a terminal it',
      'makes one for the run, shows it once with the `svc tenant update` line that points a tenant at the',
      'listener, and starts; elsewhere (a script, CI) it does not start, unless --no-verify asks for an',
      'unverified listener (it says so on every start, and the events it stores are marked',
      '"verified": false).',
      'Every new event is kept in the event store (--store DIR, or the user data directory; SVC_DATA_DIR',
      'overrides it) before it is answered 2xx, so an acknowledged event survives a crash; read it back',
      'with svc events and svc thread.',
      'Accepted events go to stdout (one JSON object a line with --json); refused requests are',
      'warnings on stderr. Retries (same X-Svc-Delivery, or the same body) are answered 200 once more',
      'and noted on stderr, not printed again. --forward-to relays each valid event, bytes and headers',
      "unchanged, to your app and answers the sender with your app's status. Ctrl-C stops it.",
    ].join('\n'),
    options: [
      { flags: '--port <n>', description: `port to listen on (default ${DEFAULT_LISTEN_PORT}; 0 picks a free one)` },
      { flags: '--host <host>', description: 'address to bind (default 127.0.0.1)' },
      {
        flags: '--secret-env <vars>',
        description: `environment variable(s) holding the secret, comma-separated for rotation (default ${DEFAULT_SECRET_ENV} when set)`,
      },
      { flags: '--basic-auth-env <var>', description: 'environment variable holding USER:PASSWORD that senders must present' },
      { flags: '--forward-to <url>', description: 'relay valid events to your app (https://, or http:// on loopback)' },
      { flags: '--store <dir>', description: 'keep every accepted event in this event store (default: the user data directory)', complete: 'file' },
      { flags: '--no-store', description: 'do not keep events (nothing for svc events, svc thread or svc events replay)' },
      { flags: '--fsync', description: 'answer 2xx only once the event is synced to the disk (survives a power cut, not just a kill)' },
      { flags: '--no-verify', description: 'accept events without checking signatures (no secret); warns on every start' },
    ],
    examples: [
      'svc webhook listen',
      'SVC_WEBHOOK_SECRET=... svc webhook listen --store ./events --json',
      'svc webhook listen --no-verify --no-store',
      'svc webhook listen --port 8080 --secret-env NEW_SECRET,OLD_SECRET --forward-to http://localhost:3000/webhooks',
      'svc webhook listen --json | jq -c "select(.kind == \\"MessageReceived\\") | .payload"',
    ],
    exitCodes: [[1, 'the port is in use or not allowed, or the event store could not be opened']],
    load: () => import('./listen.js'),
  },
  {
    path: ['webhook', 'prove'],
    summary: 'check your webhook receiver: signed events acknowledged, forged ones refused (exit 7 if not)',
    description: [
      'Sends a fixed battery of webhook requests to URL, the way the service would, and scores each answer.',
      'Required: every event kind correctly signed is acknowledged (2xx); a forged signature, another',
      "secret's signature, no signature, the signed body re-serialised (spaces, key order, escapes) with",
      'its original signature and, with --basic-auth-env, wrong or missing credentials are refused.',
      'Advisory: the same delivery twice, receipts out of order, a body near 1 MB, unknown fields, and',
      "the time to answer against the service's 10 s.",
      'Requests go to URL only (redirects are not followed): https://, or http:// on a loopback host.',
      'Exit 0 when every required check passed, 7 when one failed, 1 when the receiver cannot be reached.',
    ].join('\n'),
    args: [{ name: 'URL', description: "the receiver's address (https://, or http:// on loopback)", required: true }],
    options: [
      secretEnvOption,
      { flags: '--basic-auth-env <var>', description: 'environment variable holding the USER:PASSWORD the receiver expects' },
      { flags: '--timeout <seconds>', description: 'bound of each request (default 12: a little over the service\'s 10 s); the run is bounded by 10 of them' },
    ],
    examples: [
      'SVC_WEBHOOK_SECRET=... svc webhook prove http://localhost:3000/webhooks/svc',
      'svc webhook prove https://hooks.example.com/svc --secret-env SHOP_SECRET --basic-auth-env SHOP_HOOK_AUTH',
      'svc webhook prove "$RECEIVER_URL" --json | jq \'.checks[] | select(.verdict == "failed")\'',
    ],
    paged: true,
    exitCodes: [
      [0, 'every required check passed (advisory ones may have failed)'],
      [1, 'the receiver could not be reached: nothing was checked'],
      [7, 'a required check failed: the report says what to fix'],
    ],
    load: () => import('./prove.js'),
  },
]);
