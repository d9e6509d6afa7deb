// The bounds the sandbox sets where the service's document sets none. Its routes enforce them
// and its OpenAPI document states them, from here, so that the two cannot disagree.

/** Recipients per send request: this bounds one request's work. */
export const MAX_RECIPIENTS = 1000;

/** The page size of the active-numbers list when none is asked for, and the largest one given. */
export const DEFAULT_PAGE_LIMIT = 20;
export const MAX_PAGE_LIMIT = 100;

/** How long a hosted media link stays valid, in years. */
export const LINK_VALIDITY_YEARS = 99;

/** How many webhook attempts the sandbox keeps to list. */
export const WEBHOOK_HISTORY_LIMIT = 1_000;
