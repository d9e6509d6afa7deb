export { failed as run } from './webhooks.js';
