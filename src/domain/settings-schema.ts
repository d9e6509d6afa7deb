// The phone-number `settings` object of the document, as data: the CLI types `--set` values
// by it and the sandbox validates update bodies by it.

/** A settings object as JSON: groups of leaves, below `settings`. */
export type SettingsObject = Record<string, unknown>;

export type SettingType = 'boolean' | 'integer' | 'string' | 'datetime' | 'string[]' | 'email[]' | 'cron';

export interface SettingsGroup {
  [field: string]: SettingType | SettingsGroup;
}

/** `rateLimit` and `noOutboundTexts` are leaves at the top; the rest are groups. */
export const NUMBER_SETTINGS_SCHEMA: SettingsGroup = {
  notifications: {
    enableSound: 'boolean',
    selectedSound: 'string',
    platformA: { enabled: 'boolean', notificationName: 'string' },
    platformB: { enabled: 'boolean' },
  },
  autoResponse: { enabled: 'boolean', message: 'string', newThreadsOnly: 'boolean' },
  optIn: {
    enabled: 'boolean',
    name: 'string',
    text: 'string',
    message: 'string',
    allText: 'string',
    allMessage: 'string',
  },
  optOut: {
    enabled: 'boolean',
    text: 'string',
    textResponse: 'string',
    allText: 'string',
    allTextResponse: 'string',
    periodicEnabled: 'boolean',
    periodicCron: 'cron',
  },
  autoForward: { enabled: 'boolean', emailAddresses: 'email[]' },
  outOfOffice: { enabled: 'boolean', message: 'string', startDate: 'datetime', endDate: 'datetime' },
  signature: { enabled: 'boolean', message: 'string' },
  aiSettings: { isEnabled: 'boolean', responseGenerationContext: 'string' },
  rateLimit: 'integer',
  noOutboundTexts: 'boolean',
};

/** The type at a dotted path below `settings` (`optOut.periodicCron`), or undefined. */
export function settingTypeAt(path: string): SettingType | SettingsGroup | undefined {
  let node: SettingType | SettingsGroup | undefined = NUMBER_SETTINGS_SCHEMA;
  for (const part of path.split('.')) {
    if (node === undefined || typeof node === 'string') return undefined;
    node = Object.prototype.hasOwnProperty.call(node, part) ? node[part] : undefined;
  }
  return node;
}

/** Every leaf path of the schema, for help texts, completions and error hints. */
export function settingLeafPaths(group: SettingsGroup = NUMBER_SETTINGS_SCHEMA, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [key, value] of Object.entries(group)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (typeof value === 'string') paths.push(path);
    else paths.push(...settingLeafPaths(value, path));
  }
  return paths;
}
