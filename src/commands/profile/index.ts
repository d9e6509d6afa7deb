import type { CommandSpec, GroupSpec } from '../spec.js';

export const profileGroup: GroupSpec = { name: 'profile', summary: 'list, switch and remove stored profiles' };

export const profileCommands: CommandSpec[] = [
  {
    path: ['profile', 'list'],
    summary: 'list the stored profiles (the active one marked)',
    examples: ['svc profile list', 'svc profile list --json'],
    load: () => import('./list.js'),
  },
  {
    path: ['profile', 'use'],
    summary: 'make a profile the active one',
    args: [{ name: 'NAME', description: 'profile name', required: true }],
    examples: ['svc profile use staging'],
    load: () => import('./use.js'),
  },
  {
    path: ['profile', 'remove'],
    summary: 'delete a profile and its credentials',
    args: [{ name: 'NAME', description: 'profile name', required: true }],
    examples: ['svc profile remove old-account'],
    load: () => import('./remove.js'),
  },
];
