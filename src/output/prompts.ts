import type { IOStreams } from './io.js';

// The prompter's shape, defined here, below the Context: whoever builds a Context injects a
// prompter (tests: scripted answers) or a factory (the CLI: inquirer on the real terminal).

export interface Prompter {
  input(message: string, options?: { default?: string; validate?: (value: string) => true | string }): Promise<string>;
  password(message: string): Promise<string>;
  confirm(message: string, defaultValue?: boolean): Promise<boolean>;
  /** One of a list, the cursor on `default` when given; a prompter without it is asked with input(). */
  select?(message: string, choices: readonly { name: string; value: string; description?: string }[], options?: { default?: string }): Promise<string>;
}

/** Builds the prompter on first use; prompts go to `io.stderr`, Ctrl-C (`signal`) ends them. */
export type PrompterFactory = (io: IOStreams, signal: AbortSignal) => Promise<Prompter>;
