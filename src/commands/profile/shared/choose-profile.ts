import type { Context } from '../../../context.js';
import type { StoreData } from '../../../config/store.js';
import { askChoice } from '../../../output/ask.js';

// A stored profile chosen on a terminal, for `profile use` and `profile remove` without a NAME;
// the active profile is preselected (and marked) where choosing it again is harmless.

/** What a terminal user is told when no profile is stored. */
const NO_PROFILES = { message: 'No profiles are stored yet, so there is none to choose', hint: 'Log in to make one: svc auth login' };

export async function chooseProfile(ctx: Context, store: StoreData, command: string, options: { preselectActive: boolean }): Promise<string> {
  const active = store.activeProfile;
  const missing = { what: 'NAME (profile name)', flag: `it after \`svc ${command}\``, hint: `For example: svc ${command} work` };
  const load = async () =>
    Object.entries(store.profiles ?? {}).map(([name, profile]) => ({
      name: [name, `${profile.username} at ${profile.baseUrl}`, name === active ? '(active)' : ''].filter((part) => part !== '').join('  '),
      value: name,
    }));
  return askChoice(ctx, missing, 'Which profile?', load, {
    empty: NO_PROFILES,
    ...(options.preselectActive ? { isDefault: (name: string) => name === active } : {}),
  });
}
