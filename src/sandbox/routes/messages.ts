// Sending (one message per recipient, sync or async) and reading messages.

import { MAX_MEDIA_TOTAL_BYTES, MEDIA_TOO_LARGE_TEXT } from '../../domain/media-formats.js';
import { isE164, isGuid } from '../../domain/api/patterns.js';
import type { ApiCall } from '../call.js';
import { ApiError, notFound, validationError } from '../errors.js';
import { messageText, optionalMediaUrls, requiredE164 } from '../fields.js';
import { sendJson } from '../http-io.js';
import { countSegments } from '../../domain/segments.js';
import type { MessageRecord } from '../state/records.js';
import { messageView } from '../views.js';
import { MAX_RECIPIENTS } from '../limits.js';


function parseIsAsync(raw: string | null): boolean {
  if (raw === null || raw === '') return false;
  const lowered = raw.toLowerCase();
  if (lowered === 'true') return true;
  if (lowered === 'false') return false;
  throw validationError(`isAsync must be true or false, got "${raw}"`);
}

export async function sendMessage(call: ApiCall): Promise<void> {
  const isAsync = parseIsAsync(call.query.get('isAsync'));
  const body = await call.readJson();
  const engine = call.engine;
  const from = requiredE164(body, 'from');
  const to = body['to'];
  if (!Array.isArray(to) || to.length === 0) throw validationError('to is required: a non-empty array of E.164 numbers');
  if (to.length > MAX_RECIPIENTS) throw validationError(`to holds at most ${MAX_RECIPIENTS} recipients, got ${to.length}`);
  for (let i = 0; i < to.length; i++) {
    const r: unknown = to[i];
    if (typeof r !== 'string' || !isE164(r)) {
      throw validationError(`to[${i}] must be an E.164 number (+ then 8 to 15 digits), got ${JSON.stringify(r)}`);
    }
  }
  const mediaUrls = optionalMediaUrls(body);
  const text = messageText(body, mediaUrls);

  const number = engine.activeNumberOf(call.owner, from);
  if (!number) throw validationError(`from ${from} must be an active provisioned number of yours`);
  if (!number.isActivated) throw validationError(`from ${from} is deactivated (isActivated is false)`);
  if (mediaUrls.length > 0) {
    if (!number.isMMSEnabled) throw validationError(`from ${from} is not enabled for MMS`);
    let total = 0;
    for (const url of mediaUrls) total += engine.hostedMediaFor(url)?.bytes.length ?? 0;
    if (total > MAX_MEDIA_TOTAL_BYTES) throw new ApiError(413, 'FILE_TOO_LARGE', MEDIA_TOO_LARGE_TEXT);
  }
  // Throttled only once everything else holds: a 429 means "the same request, later, is fine".
  engine.admitSends(call.owner, number, to.length);

  const { segments, encoding } = countSegments(text);
  const queuedAt = engine.nowIso();
  const created: MessageRecord[] = [];
  for (const recipient of to as string[]) {
    const message: MessageRecord = {
      messageId: engine.newId(),
      owner: call.owner,
      tenantId: number.tenantId,
      from,
      to: recipient,
      body: text,
      mediaUrls,
      status: 'queued',
      segmentCount: segments,
      encoding,
      queuedAt,
      sentAt: null,
      deliveredAt: null,
      errorCode: null,
      errorMessage: null,
      nextStepAt: null,
    };
    engine.startMessage(message, !isAsync);
    created.push(message);
  }
  const first = created[0] as MessageRecord;
  let answer: Record<string, unknown>;
  if (isAsync) {
    answer = { messageId: first.messageId, status: first.status, queuedAt: first.queuedAt };
  } else {
    answer = { messageId: first.messageId, status: first.status, queuedAt: first.queuedAt };
    if (first.sentAt !== null) answer['sentAt'] = first.sentAt;
    answer['segmentCount'] = first.segmentCount;
    answer['encoding'] = first.encoding;
    answer['errorCode'] = first.errorCode;
    answer['errorMessage'] = first.errorMessage;
  }
  if (created.length > 1) {
    answer['messages'] = created.map((m) => ({ messageId: m.messageId, to: m.to, status: m.status }));
  }
  if (engine.durable) await engine.persisted();
  sendJson(call.res, isAsync ? 202 : 200, answer);
}

export function getMessage(call: ApiCall<'getMessage'>): void {
  const id = call.params.messageId;
  if (!isGuid(id)) throw validationError(`messageId must be a GUID, got "${id}"`);
  const message = call.engine.store.messages.get(id.toLowerCase());
  if (!message || message.owner !== call.owner) throw notFound(`Message ${id} was not found`);
  sendJson(call.res, 200, messageView(message));
}
