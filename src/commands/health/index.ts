import { defineCommands } from '../spec.js';

export const healthCommands = defineCommands([
  {
    path: ['health'],
    summary: "show the service's health (exit 1 unless Healthy)",
    examples: ['svc health', 'svc health --json'],
    load: () => import('./health.js'),
  },
]);
