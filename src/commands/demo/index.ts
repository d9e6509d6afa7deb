import { defineCommands } from '../spec.js';

export const demoCommands = defineCommands([
  {
    path: ['demo'],
    summary: 'a tour of the whole tool against a local sandbox (nothing leaves this machine)',
    description: [
      'Starts a sandbox and a webhook listener in this process, then runs the real commands one',
      'after the other, printing each as you would type it: log in, create a tenant with a',
      'webhook, provision a number and watch its order, send an SMS and an MMS with an uploaded',
      'image, see the delivery receipts and an inbound message arrive at the listener. Your own',
      'profiles are not touched. Exit 0 when every step worked, 1 naming the step that did not.',
    ].join('\n'),
    options: [{ flags: '--time-scale <x>', description: 'run the sandbox X times faster (default 1)' }],
    examples: ['svc demo', 'npm run demo'],
    exitCodes: [[1, 'a step of the tour failed; the message names it']],
    load: () => import('./demo.js'),
  },
]);
