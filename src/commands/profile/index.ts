import { defineCommands, type GroupSpec } from '../spec.js';

export const profileGroup: GroupSpec = { name: 'profile', summary: 'list, switch and remove stored profiles' };

export const profileCommands = defineCommands([
  {
    path: ['profile', 'list'],
    summary: 'list the stored profiles (the active one marked)',
    examples: ['svc profile list', 'svc profile list --json'],
    paged: true,
    exitCodes: [[1, 'the profile store could not be read']],
    load: () => import('./list.js'),
  },
  {
    path: ['profile', 'use'],
    summary: 'make a profile the active one',
    args: [{ name: 'NAME', description: 'profile name', required: true, ask: true, complete: 'profile' }],
    examples: ['svc profile use staging', 'svc profile use   # choose one, on a terminal'],
    exitCodes: [[1, 'the profile store could not be read or written']],
    load: () => import('./use.js'),
  },
  {
    path: ['profile', 'remove'],
    summary: 'delete a profile and its credentials',
    args: [{ name: 'NAME', description: 'profile name', required: true, ask: true, complete: 'profile' }],
    examples: ['svc profile remove old-account', 'svc profile remove old-account --yes'],
    exitCodes: [[1, 'the profile store could not be read or written']],
    load: () => import('./remove.js'),
  },
]);
