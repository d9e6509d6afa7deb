import { defineCommands } from '../spec.js';

export const healthCommands = defineCommands([
  {
    path: ['health'],
    summary: "show the service's health (exit 1 unless Healthy)",
    examples: ['svc health', 'svc health --json'],
    exitCodes: [[1, 'the service is not Healthy, or the request failed'], 3, 4],
    load: () => import('./health.js'),
  },
]);
