// The parts of a sandbox behind its HTTP server: the store, the scheduler of order and message
// steps, the webhook dispatcher, the engine that drives them, and the state file that keeps them.

import { fileProblem } from '../domain/files/reasons.js';
import { MESSAGE_RETENTION, SandboxEngine } from './engine.js';
import { DEFAULT_MESSAGE_STEP_MS, DEFAULT_ORDER_DELAY_MS, type SandboxOptions } from './options.js';
import { TickScheduler } from './scheduler.js';
import { SandboxStore } from './state/records.js';
import { DurableState } from './state/durable.js';
import { createWebhookDispatcher } from './webhooks/dispatcher.js';
import type { WebhookDispatcher } from './webhooks/types.js';

export interface SandboxParts {
  engine: SandboxEngine;
  scheduler: TickScheduler;
  dispatcher: WebhookDispatcher;
  /** Stops the scheduler, the dispatcher and the state file's writer. */
  shutdown(): Promise<void>;
}

export async function assembleSandbox(options: SandboxOptions, log: ((line: string) => void) | undefined): Promise<SandboxParts> {
  const timeScale = options.timeScale ?? 1;
  const store = new SandboxStore();
  const now = options.now ?? Date.now;
  let durable: DurableState | undefined;
  const scheduler = new TickScheduler((error) => log?.(`scheduler task failed: ${String(error)}`), now);
  const dispatcher = options.dispatcher ?? createWebhookDispatcher({ timeScale, now, onChange: () => durable?.dispatcherChanged() });
  const engine = new SandboxEngine(
    store,
    scheduler,
    dispatcher,
    {
      orderDelayMs: (options.orderDelayMs ?? DEFAULT_ORDER_DELAY_MS) / timeScale,
      messageStepMs: (options.messageStepMs ?? DEFAULT_MESSAGE_STEP_MS) / timeScale,
      messageRetention: options.messageRetention,
      accountRateLimit: options.rateLimit,
    },
    now,
  );
  if (options.stateFile) {
    try {
      durable = await openStateFile(options.stateFile, store, dispatcher, options, log);
    } catch (error) {
      scheduler.close();
      await dispatcher.close();
      throw error;
    }
    engine.journal = durable;
  }
  const shutdown = async (): Promise<void> => {
    scheduler.close();
    await dispatcher.close();
    await durable?.close();
  };
  return { engine, scheduler, dispatcher, shutdown };
}

async function openStateFile(
  file: string,
  store: SandboxStore,
  dispatcher: WebhookDispatcher,
  options: SandboxOptions,
  log: ((line: string) => void) | undefined,
): Promise<DurableState> {
  try {
    const { state } = await DurableState.open(
      file,
      store,
      dispatcher,
      (error) => log?.(`could not write the state file ${file}: ${fileProblem(error)}`),
      { retention: options.messageRetention ?? MESSAGE_RETENTION, now: options.now ?? Date.now, ...(options.compactBytes ? { compactBytes: options.compactBytes } : {}) },
    );
    return state;
  } catch (error) {
    // A file of another version, or one damaged by hand, is a bad input (left untouched), not a crash.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== undefined) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    if (/^state (file|log) /.test(reason)) throw new Error(reason);
    throw new Error(`state file ${file} is not a sandbox state this version can load (${reason}); move it away or pass another --state`);
  }
}
