import { defineCommand, type CommandSpec } from '../spec.js';

export const healthSpec = defineCommand({
  path: ['health'],
  summary: "show the service's health (exit 1 unless Healthy)",
  examples: ['svc health', 'svc health --json'],
  load: () => import('./health.js'),
});

export const healthCommands: CommandSpec[] = [healthSpec];
