import type { InputFor } from '../spec.js';
import type { profileCommands } from './index.js';
import type { Context } from '../../context.js';
import { readStore } from '../../config/store.js';
import { writeList } from '../../output/render.js';

interface ProfileRow {
  name: string;
  active: boolean;
  baseUrl: string;
  username: string;
  tenant: string | null;
}

export async function run(_input: InputFor<typeof profileCommands, 'profile list'>, ctx: Context): Promise<number> {
  const data = readStore(ctx.settings().configDir);
  const rows: ProfileRow[] = Object.entries(data.profiles ?? {}).map(([name, p]) => ({
    name,
    active: name === data.activeProfile,
    baseUrl: p.baseUrl,
    username: p.username,
    tenant: p.tenant ?? null,
  }));
  await writeList(ctx, rows, [
    { header: '', value: (r) => (r.active ? '*' : ''), kind: 'status', importance: 5 },
    { header: 'NAME', value: (r) => r.name, kind: 'id', importance: 4 },
    { header: 'BASE URL', value: (r) => r.baseUrl, kind: 'text', importance: 3 },
    { header: 'USERNAME', value: (r) => r.username, kind: 'text', importance: 2 },
    { header: 'TENANT', value: (r) => r.tenant, kind: 'id', importance: 1 },
  ]);
  return 0;
}
