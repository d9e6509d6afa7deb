#!/usr/bin/env bash
# What the keychain costs a command: `svc tenant list --json` against a loopback server, with the
# password read from a real Secret Service (gnome-keyring on its own D-Bus session) against the
# same command with SVC_PASSWORD, alternating, medians of 9. Needs dbus-run-session and
# gnome-keyring-daemon (.ci/run installs them). Run: npm run build && bash bench/keychain.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# A home of its own, so that the keyring is a new one (never the user's).
HOME="$(mktemp -d)"
export HOME
exec dbus-run-session -- bash -c '
set -euo pipefail
echo -n bench | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
node --input-type=module -e "
import { execFile, spawnSync } from \"node:child_process\";
import { createServer } from \"node:http\";
import { mkdtempSync } from \"node:fs\";
import { tmpdir } from \"node:os\";
import { join } from \"node:path\";
const server = createServer((q, r) => { r.writeHead(200, { \"content-type\": \"application/json\" }); r.end(\"[]\"); });
await new Promise((ok) => server.listen(0, \"127.0.0.1\", ok));
const url = \"http://127.0.0.1:\" + server.address().port;
const dir = mkdtempSync(join(tmpdir(), \"svc-bench-keychain-\"));
const env = { ...process.env, SVC_CONFIG_DIR: dir };
const login = spawnSync(process.execPath, [\"bin/svc.js\", \"auth\", \"login\", \"--base-url\", url, \"--username\", \"b@example.com\", \"--password-stdin\", \"--no-verify\"], { env, input: \"pw\" });
if (login.status !== 0) throw new Error(login.stderr.toString());
// Asynchronous, so that the server in this process answers while the command runs.
const time = (extra) => new Promise((resolve, reject) => {
  const start = performance.now();
  execFile(process.execPath, [\"bin/svc.js\", \"tenant\", \"list\", \"--json\"], { env: { ...env, ...extra } }, (error) => (error ? reject(error) : resolve(performance.now() - start)));
});
const keychain = [], plain = [];
for (let i = 0; i < 9; i++) { keychain.push(await time({})); plain.push(await time({ SVC_USERNAME: \"b@example.com\", SVC_PASSWORD: \"pw\" })); }
const median = (xs) => xs.sort((a, b) => a - b)[4];
console.log(\"tenant list, password from the keychain: \" + median(keychain).toFixed(0) + \" ms; from SVC_PASSWORD: \" + median(plain).toFixed(0) + \" ms; ratio \" + (median(keychain) / median(plain)).toFixed(2));
server.close();
"
'
