import { defineCommands, type GroupSpec } from '../spec.js';

export const authGroup: GroupSpec = { name: 'auth', summary: 'log in, see who you are, log out' };

export const authCommands = defineCommands([
  {
    path: ['auth', 'login'],
    summary: 'check credentials with one request and store them in a profile',
    description:
      'Prompts for what is missing when a person is at the terminal; otherwise takes --base-url,\n' +
      '--username and --password-stdin (or SVC_BASE_URL, SVC_USERNAME, SVC_PASSWORD). Nothing is\n' +
      'stored when the service refuses the credentials. --sandbox makes a "sandbox" profile for\n' +
      'the local sandbox (svc sandbox start) with its default account. What the profile already\n' +
      'holds is not asked again (`svc auth login --tenant GUID` only changes the tenant).\n' +
      'The password goes to the system keychain (macOS Keychain, Windows Credential Manager, the\n' +
      'Secret Service on Linux); without one, --insecure-storage keeps it in the 0600 profile file.',
    options: [
      { flags: '--username <email>', description: 'account email' },
      { flags: '--password-stdin', description: 'read the password from standard input' },
      { flags: '--tenant <guid>', description: 'default tenant for commands that need one' },
      { flags: '--sandbox', description: 'log in to the local sandbox (default http://127.0.0.1:4010)' },
      { flags: '--no-verify', description: 'store without checking the credentials first' },
      { flags: '--insecure-storage', description: 'keep the password in clear in the 0600 profile file instead of the system keychain' },
    ],
    examples: [
      'svc auth login',
      'svc auth login --sandbox',
      'svc auth login --profile staging --base-url https://staging.example.com',
      'echo "$PASSWORD" | svc auth login --base-url https://api.example.com --username me@example.com --password-stdin',
    ],
    exitCodes: [1, 3, 4],
    load: () => import('./login.js'),
  },
  {
    path: ['auth', 'status'],
    summary: 'show the profile, base URL, username and tenant in use (never the password)',
    options: [{ flags: '--check', description: 'also check the credentials with one request' }],
    examples: ['svc auth status', 'svc auth status --check --json'],
    exitCodes: [[1, 'with --check: the request failed'], [3, 'not logged in, or with --check the service refused the credentials'], [4, 'with --check: not found (404), which usually means a wrong base URL']],
    load: () => import('./status.js'),
  },
  {
    path: ['auth', 'logout'],
    summary: 'remove the stored credentials of a profile',
    examples: ['svc auth logout', 'svc auth logout --profile staging'],
    exitCodes: [[1, 'the profile store could not be read or written']],
    load: () => import('./logout.js'),
  },
]);
