import type { InputFor } from '../spec.js';
import type { healthCommands } from './index.js';
import type { Context } from '../../context.js';
import { getHealth } from '../../api/health.js';
import { renderTable, statusTone, writeObject, type Column } from '../../output/render.js';

export async function run(_input: InputFor<typeof healthCommands, 'health'>, ctx: Context): Promise<number> {
  const health = await getHealth(await ctx.api());
  const healthy = typeof health.status === 'string' && health.status.toLowerCase() === 'healthy';
  if (ctx.globals.output !== 'table') {
    await writeObject(ctx, health);
    return healthy ? 0 : 1;
  }
  const { entries, ...summary } = health;
  await writeObject(ctx, summary);
  if (Array.isArray(entries) && entries.length > 0) {
    const rows = entries.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
    const columns: Column<Record<string, unknown>>[] = [
      { header: 'CHECK', value: (e: Record<string, unknown>) => e['name'] ?? e['key'], kind: 'id', importance: 3 },
      { header: 'STATUS', value: (e: Record<string, unknown>) => e['status'], tone: statusTone, kind: 'status', importance: 2 },
      { header: 'DURATION', value: (e: Record<string, unknown>) => e['duration'], kind: 'number', importance: 1 },
    ];
    if (ctx.io.stdoutIsTTY) ctx.io.stdout.write(`\n${await renderTable(ctx, rows, columns)}\n`);
    else for (const e of rows) ctx.io.stdout.write(`${columns.map((c) => String(c.value(e) ?? '')).join('\t')}\n`);
  }
  return healthy ? 0 : 1;
}
