import { objectOf, type ApiClient } from './http.js';
import type { MessageWire, Received, SendAnswerWire } from '../domain/api/wire.js';

// Typed calls for messages. They return what the server said and never print.

export interface SendMessageRequest {
  from: string;
  to: string[];
  body: string;
  mediaUrls?: string[];
}

/** The server's answer to a send: `messageId`, `status`, and whatever else it chose to say. */
export type SendAnswer = Received<SendAnswerWire>;

export type Message = Received<MessageWire>;

export interface SendOptions {
  isAsync: boolean;
  /** Ctrl-C lets this request finish (a bulk send journals every answer in flight). */
  finishOnInterrupt?: boolean;
  /** Cuts this request off (a bulk send's grace period after a signal). */
  signal?: AbortSignal;
}

// The same frozen objects every time: the HTTP layer then knows the URL it built last is the one (a bulk send).
const ASYNC_QUERY = Object.freeze({ isAsync: true });
const SYNC_QUERY = Object.freeze({ isAsync: false });

/**
 * POST /messages. Never retried once it may have reached the server (the HTTP layer sees to it).
 * It resolves only on a 2xx answer with a JSON object: that, and nothing else, is `accepted`.
 * Every other outcome throws, and src/send/outcome.ts says what the error means for the
 * recipients: an UnexpectedAnswerError (a redirect, a 204, HTML, unreadable JSON) or a reset
 * after the request went out may have been acted on, so `unknown`; a 4xx refusal, `rejected`.
 */
export async function sendMessage(api: ApiClient, request: SendMessageRequest, options: SendOptions): Promise<SendAnswer> {
  const response = await api.call('sendMessage', {
    query: options.isAsync ? ASYNC_QUERY : SYNC_QUERY,
    json: request,
    finishOnInterrupt: options.finishOnInterrupt,
    signal: options.signal,
  });
  return objectOf<SendAnswer>(response);
}

export async function getMessage(api: ApiClient, messageId: string, signal?: AbortSignal): Promise<Message> {
  return objectOf<Message>(await api.call('getMessage', { params: { messageId }, signal }));
}

/**
 * Words that end a message's life badly, wherever they stand in the status (`failed`,
 * `delivery_failed`, `Undeliverable`, `rejected`, `expired`, `cancelled`, ...), as orders are
 * read; other statuses the document does not show pass through as pending.
 */
const FAILED_STATUS = /fail|undeliver|reject|error|expire|cancel/;

export function messageOutcome(message: Message): 'delivered' | 'failed' | 'pending' {
  const status = typeof message.status === 'string' ? message.status.trim().toLowerCase() : '';
  if (status === 'delivered') return 'delivered';
  if (FAILED_STATUS.test(status)) return 'failed';
  return 'pending';
}
