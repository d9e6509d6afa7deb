import { confirm, input, password, select } from '@inquirer/prompts';
import type { Prompter } from './prompts.js';
import type { IOStreams } from './io.js';
import { InterruptedError } from '../errors.js';

// Prompts go to stderr so that stdout stays data, even while asking.

export function createInquirerPrompter(io: IOStreams, signal: AbortSignal): Prompter {
  const context = { input: io.stdin, output: io.stderr, signal, clearPromptOnDone: false };
  const guard = async <T>(ask: () => Promise<T>): Promise<T> => {
    try {
      return await ask();
    } catch (error) {
      if (error instanceof Error && (error.name === 'ExitPromptError' || error.name === 'AbortPromptError')) {
        throw new InterruptedError();
      }
      throw error;
    }
  };
  return {
    input: (message, options = {}) =>
      guard(() =>
        input(
          {
            message,
            ...(options.default !== undefined ? { default: options.default } : {}),
            ...(options.validate ? { validate: options.validate } : {}),
          },
          context,
        ),
      ),
    password: (message) => guard(() => password({ message, mask: '*' }, context)),
    confirm: (message, defaultValue = false) => guard(() => confirm({ message, default: defaultValue }, context)),
    select: (message, choices) =>
      guard(() =>
        select(
          {
            message,
            choices: choices.map((c) => ({ name: c.name, value: c.value, ...(c.description !== undefined ? { description: c.description } : {}) })),
            pageSize: 12,
          },
          context,
        ),
      ),
  };
}
