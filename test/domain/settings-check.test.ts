import { describe, expect, it } from 'vitest';
import { isCronExpression } from '../../src/domain/cron.js';
import { settingLeafProblem } from '../../src/domain/settings-check.js';
import { checkSettingsObject } from '../../src/numbers/settings.js';
import { mergeNumberSettings } from '../../src/sandbox/number-settings.js';

// One rule for a settings value, on both sides: what the CLI refuses before a request, the
// sandbox refuses on receipt, and the other way round.

const sandboxProblem = (settings: unknown): string | undefined => {
  try {
    mergeNumberSettings(settings, {});
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
};

describe('the settings checker shared by the CLI and the sandbox', () => {
  const refused: [unknown, string][] = [
    [{ rateLimit: -1 }, 'rateLimit'],
    [{ rateLimit: 2.5 }, 'rateLimit'],
    [{ rateLimit: '5' }, 'rateLimit'],
    [{ autoForward: { emailAddresses: ['ops@example.com', 'nobody'] } }, 'autoForward.emailAddresses[1]'],
    [{ autoForward: { emailAddresses: 'ops@example.com' } }, 'autoForward.emailAddresses'],
    [{ optOut: { periodicCron: 'banana * * * *' } }, 'optOut.periodicCron'],
    [{ optOut: { periodicCron: '99 99 * * *' } }, 'optOut.periodicCron'],
    [{ optOut: { periodicCron: '0 0 9 * * 1' } }, 'optOut.periodicCron'],
    [{ outOfOffice: { startDate: '2026-02-30' } }, 'outOfOffice.startDate'],
    [{ optOut: { enabled: 'yes' } }, 'optOut.enabled'],
  ];
  for (const [settings, path] of refused) {
    it(`both refuse ${JSON.stringify(settings)}, naming settings.${path}`, () => {
      expect(checkSettingsObject(settings)).toEqual([expect.stringContaining(`settings.${path} takes `)]);
      expect(sandboxProblem(settings)).toContain(`settings.${path} must be `);
    });
  }

  it('both accept what the document allows', () => {
    const settings = {
      rateLimit: 0,
      autoForward: { emailAddresses: ['ops@example.com'] },
      optOut: { periodicCron: '*/15 0-6 1,15 JAN-MAR MON-FRI' },
      outOfOffice: { startDate: '2026-07-01T09:00:00Z' },
    };
    expect(checkSettingsObject(settings)).toEqual([]);
    expect(sandboxProblem(settings)).toBeUndefined();
  });

  it('says what a leaf expects and where, down to the element of a list', () => {
    expect(settingLeafProblem('rateLimit', 'integer', -1)).toEqual({ path: 'rateLimit', expected: 'an integer of at least 0', value: -1 });
    expect(settingLeafProblem('autoForward.emailAddresses', 'email[]', ['a@b.example', 'x'])).toEqual({
      path: 'autoForward.emailAddresses[1]',
      expected: 'an e-mail address',
      value: 'x',
    });
    expect(settingLeafProblem('optOut.periodicCron', 'cron', '0 9 * * 1')).toBeUndefined();
  });
});

describe('cron expressions (croner, five fields)', () => {
  it.each(['0 9 * * 1', '*/15 0-6 1,15 JAN-MAR MON-FRI', '0 0 L * *', '0 12 * * 5#2', '  0 9 * * 1 '])('accepts %j', (text) => {
    expect(isCronExpression(text)).toBe(true);
  });
  it.each(['banana * * * *', '99 99 * * *', '60 * * * *', '0 24 * * *', '0 0 32 * *', '0 0 * 13 *', '5-1 * * * *', '*/0 * * * *', '0 9 * *', '0 0 9 * * 1', '0 9 * * 1 2026', '@daily', ''])(
    'refuses %j',
    (text) => {
      expect(isCronExpression(text)).toBe(false);
    },
  );
});
