// What apply checks once the plan is made and before its first write: nothing blocked, and every
// secret it will send set in the environment. Apart from the writer (apply.ts), so that a run
// with nothing to change does not load it.

import { CliError, ExitCode, UsageError } from '../errors.js';
import { isSecretRef, type DesiredFleet } from './model.js';
import type { Plan } from './plan.js';

/** The environment secrets are read from. */
export type SecretEnv = Readonly<Record<string, string | undefined>>;

/** The value of every secret the writes will send, by env name; exit 2 naming each unset variable. */
export function resolveSecrets(fleet: DesiredFleet, plan: Plan, updateSecrets: boolean, env: SecretEnv): Map<string, string> {
  const created = new Set(plan.changes.filter((c) => c.action === 'create-tenant').map((c) => c.target));
  const values = new Map<string, string>();
  const unset: string[] = [];
  for (const tenant of fleet.tenants) {
    if (!created.has(tenant.tenantId) && !updateSecrets) continue;
    for (const [key, value] of Object.entries(tenant.settings ?? {})) {
      if (!isSecretRef(value)) continue;
      const secret = env[value.env];
      if (secret === undefined || secret === '') unset.push(`${value.env} (tenant ${tenant.tenantId} ${key})`);
      else values.set(value.env, secret);
    }
  }
  if (unset.length > 0) {
    throw new UsageError(`${unset.length === 1 ? 'A secret variable is' : `${unset.length} secret variables are`} not set, so nothing was changed: ${unset.join(', ')}`, [
      'Set them from your CI secret store (or the shell) before `svc apply`.',
    ]);
  }
  return values;
}

/** A blocked change stops apply before any write (exit 1). */
export function refuseBlocked(plan: Plan): void {
  const blocked = plan.changes.filter((c) => c.action === 'blocked');
  if (blocked.length === 0) return;
  const lines = blocked.slice(0, 20).map((c) => `  ${c.target}: ${c.reason ?? ''}`);
  if (blocked.length > 20) lines.push(`  ... and ${blocked.length - 20} more`);
  throw new CliError(`${blocked.length === 1 ? 'A change is' : `${blocked.length} changes are`} blocked (no request can make ${blocked.length === 1 ? 'it' : 'them'}), so nothing was changed:\n${lines.join('\n')}`, ExitCode.Failure);
}
