export { replay as run } from './webhooks.js';
