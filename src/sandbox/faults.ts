// --faults: a share of API requests answered 500, 503 or 429, or dropped, in turn, so that a
// client's retries and error handling can be tried against the sandbox.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.js';
import { sendError } from './http-io.js';

const FAULT_KINDS = ['500', '503', '429', 'drop'] as const;

/** Answers a fault instead of the request, `share` of the time (0..1); true when it did. */
export function faultInjector(share: number, random: () => number): (req: IncomingMessage, res: ServerResponse) => boolean {
  let counter = 0;
  return (req, res) => {
    if (share <= 0 || random() >= share) return false;
    const kind = FAULT_KINDS[counter++ % FAULT_KINDS.length];
    if (kind === 'drop') {
      req.socket.destroy();
    } else if (kind === '429') {
      sendError(res, new ApiError(429, 'RATE_LIMITED', 'Too many requests (sandbox fault injection)', { 'Retry-After': '1' }));
    } else if (kind === '503') {
      sendError(res, new ApiError(503, 'SERVICE_UNAVAILABLE', 'The service is unavailable (sandbox fault injection)'));
    } else {
      sendError(res, new ApiError(500, 'INTERNAL_ERROR', 'Internal error (sandbox fault injection)'));
    }
    return true;
  };
}
