import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const TENANT = '3f2504e0-4f89-11d3-9a0c-0305e82c3301';

/** A temporary directory for input files, removed by cleanup(). */
export function fileDir(prefix: string): { write: (name: string, content: string | Buffer) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    write(name, content) {
      const path = join(dir, name);
      writeFileSync(path, content);
      return path;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

export function order(status: string, entries: [string, string][], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    orderId: 42,
    status,
    action: 'Provision',
    tenantId: TENANT,
    provisionClass: 'P2P',
    provisionType: 'SMS',
    createDate: '2026-01-01T00:00:00Z',
    completionDate: status === 'Completed' || status === 'Failed' ? '2026-01-01T00:03:00Z' : null,
    phoneNumbers: entries.map(([number, entryStatus], i) => ({ number, phoneNumberId: `00000000-0000-4000-8000-00000000000${i}`, status: entryStatus, email: null })),
    ...extra,
  };
}
