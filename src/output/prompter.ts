import { confirm, input, password, select } from '@inquirer/prompts';
import type { Prompter } from './prompts.js';
import { controlChannel, type IOStreams } from './io.js';
import { visibleLine } from './terminal.js';
import { InterruptedError } from '../errors.js';

// Prompts go to stderr so that stdout stays data, even while asking. Inquirer draws with escape
// sequences of its own, so it writes to stderr's control channel (redacted, not made
// terminal-safe), and every text it shows is made visible first: a tenant's name that the service
// sent cannot rewrite the question.

export function createInquirerPrompter(io: IOStreams, signal: AbortSignal): Prompter {
  const context = { input: io.stdin, output: controlChannel(io.stderr), signal, clearPromptOnDone: false };
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
            message: visibleLine(message),
            ...(options.default !== undefined ? { default: options.default } : {}),
            ...(options.validate ? { validate: visibleValidate(options.validate) } : {}),
          },
          context,
        ),
      ),
    password: (message) => guard(() => password({ message: visibleLine(message), mask: '*' }, context)),
    confirm: (message, defaultValue = false) => guard(() => confirm({ message: visibleLine(message), default: defaultValue }, context)),
    select: (message, choices, options = {}) =>
      guard(() =>
        select(
          {
            message: visibleLine(message),
            choices: choices.map((c) => ({ name: visibleLine(c.name), value: c.value, ...(c.description !== undefined ? { description: visibleLine(c.description) } : {}) })),
            pageSize: 12,
            ...(options.default !== undefined ? { default: options.default } : {}),
          },
          context,
        ),
      ),
  };
}

/** A validator whose refusal (which may quote what was typed) is shown made visible. */
function visibleValidate(validate: (value: string) => true | string): (value: string) => true | string {
  return (value) => {
    const verdict = validate(value);
    return verdict === true ? true : visibleLine(verdict);
  };
}
