import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkRecipientsFile, readRecipients } from '../../src/send/recipients.js';
import type { RecipientRow } from '../../src/send/recipient-rows.js';
import { CostTally } from '../../src/send/stats.js';
import { compileTemplate } from '../../src/send/template.js';
import { RecipientFilter } from '../../src/send/pace/filter.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-stats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BODY = 'Hello {{Name}}, your order {{order}} has shipped.';

function csv(): string {
  const path = join(dir, 'to.csv');
  const lines = ['phone,name,order'];
  for (let i = 0; i < 50; i++) lines.push(`+1415555${String(1000 + i)},${i % 7 === 0 ? 'Zoë' : `Person ${i}`},A-${'9'.repeat(i)}`);
  // A number listed again: counted once, as the send sends it once.
  lines.push('+14155551000,Again,A-1');
  writeFileSync(path, `${lines.join('\n')}\n`);
  return path;
}

describe('the cost of a send, counted as the check reads the file', () => {
  it('is the count of a pass of its own over the same rows (a dry run reads the file once)', async () => {
    const path = csv();
    const during = new CostTally(BODY, (columns) => compileTemplate(BODY, columns), new RecipientFilter(undefined, { k: 1, n: 2 }));
    const seen: string[][] = [];
    const check = await checkRecipientsFile(path, {
      onRow: (row, columns) => {
        seen.push([...columns]);
        during.row(row, columns);
      },
    });
    expect(check.recipients).toBe(50);
    expect(seen).toHaveLength(50);
    expect(seen[0]).toEqual(['phone', 'name', 'order']);

    const template = compileTemplate(BODY, check.columns);
    const after = new CostTally(BODY, () => template, new RecipientFilter(undefined, { k: 1, n: 2 }));
    const rows: RecipientRow[] = [];
    for await (const row of readRecipients(path)) rows.push(row);
    for (const row of rows) after.row(row, check.columns);

    const counted = during.finish()!;
    expect(counted).toEqual(after.finish());
    expect(counted.templated).toBe(true);
    expect(counted.encoding).toBe('UCS-2');
    expect(counted.recipients + counted.otherShards).toBe(50);
    expect(counted.otherShards).toBeGreaterThan(0);
    expect(counted.segments).toBeGreaterThan(1);
  });

  it('leaves the count to a later pass when the template names no column of the file', async () => {
    const tally = new CostTally('Hi {{nobody}}', (columns) => compileTemplate('Hi {{nobody}}', columns), new RecipientFilter(undefined, undefined));
    const check = await checkRecipientsFile(csv(), { onRow: tally.row });
    expect(check.problemCount).toBe(0);
    expect(tally.finish()).toBeUndefined();
  });

  it('a check without onRow builds no fields, and counts the same', async () => {
    const path = csv();
    const plain = await checkRecipientsFile(path);
    const withRows = await checkRecipientsFile(path, { onRow: () => undefined });
    expect(plain).toEqual(withRows);
  });
});
