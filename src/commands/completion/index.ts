import { defineCommands } from '../spec.js';
import { SHELLS } from '../defaults.js';


export const completionCommands = defineCommands([
  {
    path: ['completion'],
    summary: 'print a shell completion script',
    args: [{ name: 'SHELL', description: 'bash, zsh or fish', required: true, choices: SHELLS }],
    examples: [
      'svc completion bash > ~/.local/share/bash-completion/completions/svc',
      'svc completion zsh > "${fpath[1]}/_svc"',
      'svc completion fish > ~/.config/fish/completions/svc.fish',
    ],
    exitCodes: [],
    load: () => import('./completion.js'),
  },
  {
    path: ['__profiles'],
    summary: 'print the profile names, one a line (for the completion scripts)',
    examples: ['svc __profiles'],
    hidden: true,
    load: () => import('./profiles.js'),
  },
]);
