// The sandbox library: what `svc sandbox start`, `svc sandbox inbound` and the demo build on.

export {
  startSandbox,
  parseUserSpec,
  API_PREFIX,
  DEFAULT_SANDBOX_HOST,
  DEFAULT_SANDBOX_PORT,
  DEFAULT_ORDER_DELAY_MS,
  DEFAULT_MESSAGE_STEP_MS,
  type SandboxOptions,
  type RunningSandbox,
  type HttpExchange,
} from './server.js';
export { openApiDocument } from './openapi.js';
export { DEFAULT_USER, type SandboxUser } from './auth.js';
export { FAILING_NUMBER_PATTERN, HIDDEN_SECRET } from './engine.js';
export type { WebhookDispatcher, WebhookTarget, DeliveryAttempt, FailedEvent } from './webhooks/types.js';
