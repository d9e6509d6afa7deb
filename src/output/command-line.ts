// A command for a person to run next, printed as a hint ("Follow it: svc message watch ID"): the
// words quoted as a POSIX shell takes them back, and the global options that chose the service
// (--profile, --base-url) carried over, so that the line can be pasted as it is.

/** A word as a shell takes it back: quoted when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `svc WORDS...` with the run's --profile and --base-url, when they were given. */
export function commandLine(globals: { readonly profile?: string | undefined; readonly baseUrl?: string | undefined }, words: readonly string[]): string {
  const chosen: string[] = [];
  if (globals.profile !== undefined) chosen.push('--profile', globals.profile);
  if (globals.baseUrl !== undefined) chosen.push('--base-url', globals.baseUrl);
  return ['svc', ...words, ...chosen].map(shellWord).join(' ');
}
