export { list as run } from './webhooks.js';
