import { describe, expect, it } from 'vitest';
import { settingLeafPaths } from '../../src/domain/settings-schema.js';
import {
  checkSettingsObject,
  closeSettingPaths,
  mergeSettings,
  parseSetAssignment,
  SettingError,
  settingsFromAssignments,
} from '../../src/numbers/settings.js';

function setError(text: string): SettingError {
  try {
    parseSetAssignment(text);
  } catch (error) {
    if (error instanceof SettingError) return error;
    throw error;
  }
  throw new Error(`expected ${text} to be refused`);
}

describe('--set typing, one case per settings group', () => {
  const cases: [string, string[], unknown][] = [
    ['settings.notifications.enableSound=yes', ['notifications', 'enableSound'], true],
    ['settings.notifications.selectedSound=chime', ['notifications', 'selectedSound'], 'chime'],
    ['settings.notifications.platformA.enabled=0', ['notifications', 'platformA', 'enabled'], false],
    ['settings.notifications.platformA.notificationName=Ops', ['notifications', 'platformA', 'notificationName'], 'Ops'],
    ['settings.notifications.platformB.enabled=TRUE', ['notifications', 'platformB', 'enabled'], true],
    ['settings.autoResponse.message=We are closed = back at 9', ['autoResponse', 'message'], 'We are closed = back at 9'],
    ['settings.autoResponse.newThreadsOnly=no', ['autoResponse', 'newThreadsOnly'], false],
    ['settings.optIn.allMessage=Welcome', ['optIn', 'allMessage'], 'Welcome'],
    ['settings.optOut.periodicCron=0  9 * * 1', ['optOut', 'periodicCron'], '0 9 * * 1'],
    ['settings.optOut.periodicEnabled=1', ['optOut', 'periodicEnabled'], true],
    ['settings.autoForward.emailAddresses=a@example.com, b@example.org', ['autoForward', 'emailAddresses'], ['a@example.com', 'b@example.org']],
    ['settings.autoForward.emailAddresses=', ['autoForward', 'emailAddresses'], []],
    ['settings.outOfOffice.startDate=2026-07-01T09:00:00Z', ['outOfOffice', 'startDate'], '2026-07-01T09:00:00Z'],
    ['settings.outOfOffice.endDate=2026-07-14', ['outOfOffice', 'endDate'], '2026-07-14'],
    ['settings.signature.message=-- Acme', ['signature', 'message'], '-- Acme'],
    ['settings.aiSettings.isEnabled=off', ['aiSettings', 'isEnabled'], false],
    ['settings.aiSettings.responseGenerationContext=Be brief', ['aiSettings', 'responseGenerationContext'], 'Be brief'],
    ['settings.rateLimit=25', ['rateLimit'], 25],
    ['settings.noOutboundTexts=true', ['noOutboundTexts'], true],
    ['optIn.enabled=true', ['optIn', 'enabled'], true],
  ];
  for (const [text, path, value] of cases) {
    it(`types ${text}`, () => {
      expect(parseSetAssignment(text)).toEqual({ path, value });
    });
  }

  it('covers every leaf of the schema with some case above', () => {
    const covered = new Set(cases.map(([, path]) => path.join('.')));
    const groups = new Set(settingLeafPaths().map((p) => p.split('.')[0]));
    expect([...groups].every((g) => [...covered].some((c) => c.split('.')[0] === g))).toBe(true);
  });
});

describe('--set refusals name the path and the value', () => {
  const refused: [string, RegExp][] = [
    ['settings.rateLimit=fast', /settings\.rateLimit takes a whole number.*"fast"/],
    ['settings.rateLimit=-3', /settings\.rateLimit.*"-3"/],
    ['settings.rateLimit=2.5', /settings\.rateLimit.*"2\.5"/],
    ['settings.noOutboundTexts=maybe', /settings\.noOutboundTexts takes true or false.*"maybe"/],
    ['settings.optOut.enabled=enabled', /settings\.optOut\.enabled.*"enabled"/],
    ['settings.outOfOffice.startDate=next monday', /settings\.outOfOffice\.startDate takes an ISO 8601.*"next monday"/],
    ['settings.outOfOffice.endDate=2026-13-45', /settings\.outOfOffice\.endDate.*"2026-13-45"/],
    ['settings.outOfOffice.endDate=2026-02-30T09:00:00Z', /settings\.outOfOffice\.endDate takes an ISO 8601.*"2026-02-30T09:00:00Z"/],
    ['settings.outOfOffice.startDate=2026-04-31', /settings\.outOfOffice\.startDate takes an ISO 8601.*"2026-04-31"/],
    ['settings.optOut.periodicCron=every day', /settings\.optOut\.periodicCron takes a cron.*"every day"/],
    ['settings.optOut.periodicCron=banana * * * *', /settings\.optOut\.periodicCron takes a cron expression of 5 fields.*"banana \* \* \* \*"/],
    ['settings.optOut.periodicCron=99 99 * * *', /periodicCron takes a cron.*"99 99 \* \* \*"/],
    ['settings.optOut.periodicCron=0 0 9 * * 1', /periodicCron takes a cron.*"0 0 9 \* \* 1"/],
    ['settings.optOut.periodicCron=@daily', /periodicCron takes a cron.*"@daily"/],
    ['settings.autoForward.emailAddresses=a@example.com,nobody', /emailAddresses.*"nobody" is not one/],
    ['settings.optOut=true', /settings\.optOut is a group.*settings\.optOut\.enabled/],
    ['settings.optOut.enabeld=true', /settings\.optOut\.enabeld is not a phone-number setting \(value "true"\)/],
    ['settings.webhookSecret=x', /settings\.webhookSecret is not a phone-number setting/],
    ['settings.optOut.enabled', /settings\.PATH=VALUE/],
    ['=true', /settings\.PATH=VALUE/],
  ];
  for (const [text, message] of refused) {
    it(`refuses ${text}`, () => {
      expect(setError(text).message).toMatch(message);
    });
  }

  it('suggests close paths for a typo', () => {
    expect(setError('settings.optOut.enabeld=true').hints[0]).toContain('settings.optOut.enabled');
    expect(closeSettingPaths('autoForward.emailAddress')).toContain('autoForward.emailAddresses');
    expect(closeSettingPaths('optout.periodicCron')).toContain('optOut.periodicCron');
    expect(closeSettingPaths('signature.enabled')).toEqual(expect.arrayContaining(['signature.enabled']));
  });
});

describe('settings objects', () => {
  it('nests assignments, the last one for a path winning, and merges group by group', () => {
    const sets = settingsFromAssignments([
      parseSetAssignment('settings.optOut.enabled=true'),
      parseSetAssignment('settings.optOut.text=STOP'),
      parseSetAssignment('settings.rateLimit=5'),
      parseSetAssignment('settings.rateLimit=6'),
    ]);
    expect(sets).toEqual({ optOut: { enabled: true, text: 'STOP' }, rateLimit: 6 });
    expect(mergeSettings({ optOut: { textResponse: 'Bye', enabled: false }, signature: { enabled: true } }, sets)).toEqual({
      optOut: { textResponse: 'Bye', enabled: true, text: 'STOP' },
      signature: { enabled: true },
      rateLimit: 6,
    });
  });

  it('checks a settings object from a file by JSON type', () => {
    expect(checkSettingsObject({ optOut: { enabled: true, periodicCron: '0 9 * * 1' }, rateLimit: 3, autoForward: { emailAddresses: ['a@example.com'] } })).toEqual([]);
    expect(checkSettingsObject({ optOut: { enabled: 'yes' }, rateLimit: '3', autoForward: { emailAddresses: 'a@example.com' }, bogus: 1 })).toEqual([
      'settings.optOut.enabled takes true or false, not "yes"',
      'settings.rateLimit takes an integer of at least 0, not "3"',
      'settings.autoForward.emailAddresses takes an array of strings (e-mail addresses), not "a@example.com"',
      'settings.bogus is not a phone-number setting',
    ]);
    expect(checkSettingsObject([])).toEqual(['settings must be an object, not []']);
  });
});
