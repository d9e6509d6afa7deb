import type { CommandSpec, GroupSpec } from './spec.js';
import { apiCommands } from './api/index.js';
import { authCommands, authGroup } from './auth/index.js';
import { completionCommands } from './completion/index.js';
import { demoCommands } from './demo/index.js';
import { healthCommands } from './health/index.js';
import { mediaCommands, mediaGroup } from './media/index.js';
import { messageCommands, messageGroup } from './message/index.js';
import { numberCommands, numberGroup, numberLoaGroup } from './number/index.js';
import { orderCommands, orderGroup } from './order/index.js';
import { profileCommands, profileGroup } from './profile/index.js';
import { sandboxCommands, sandboxGroup, sandboxTriggerGroup, sandboxWebhooksGroup } from './sandbox/index.js';
import { sendCommands } from './send/index.js';
import { tenantCommands, tenantGroup } from './tenant/index.js';
import { webhookCommands, webhookGroup } from './webhook/index.js';
import { eventsCommands, eventsGroup } from './events/index.js';
import { threadCommands } from './thread/index.js';
import { optoutsCommands, optoutsGroup } from './optouts/index.js';
import { fleetCommands } from './fleet/index.js';

// The one command tree: parsing, help, completions and the manual all come from it.

/** What `svc --help` and the manual say of the program itself. */
export const PROGRAM = {
  summary: 'Phone numbers, tenants, SMS/MMS, media and webhooks of the messaging service, and a local sandbox of it.',
  /** Where a newcomer begins: a command line and what it does. */
  startHere: [
    ['svc demo', 'a tour of the whole tool against a local sandbox'],
    ['svc auth login', 'store credentials in a profile'],
    ['svc <command> --help', 'flags and examples of a command'],
  ],
} as const;

export const GROUPS: readonly GroupSpec[] = [authGroup, profileGroup, tenantGroup, webhookGroup, eventsGroup, optoutsGroup, messageGroup, mediaGroup, numberGroup, numberLoaGroup, orderGroup, sandboxGroup, sandboxTriggerGroup, sandboxWebhooksGroup];

export const COMMANDS: readonly CommandSpec[] = [
  ...demoCommands,
  ...authCommands,
  ...profileCommands,
  ...healthCommands,
  ...tenantCommands,
  ...numberCommands,
  ...orderCommands,
  ...sendCommands,
  ...messageCommands,
  ...mediaCommands,
  ...webhookCommands,
  ...eventsCommands,
  ...threadCommands,
  ...optoutsCommands,
  ...fleetCommands,
  ...sandboxCommands,
  ...apiCommands,
  ...completionCommands,
];
