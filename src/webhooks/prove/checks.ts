// The checks of `svc webhook prove`, each a few deliveries and a rule for judging the answers.
// Required: what the service sends is acknowledged, and whatever it would never send (a forged,
// missing or foreign signature, a body that is not the signed bytes, wrong or missing Basic
// credentials) is refused. Advisory: what a receiver meets in production that demos never show
// (retries, receipts out of order, a large body, new fields, the service's 10 s).

import { randomBytes, randomUUID } from 'node:crypto';
import { WEBHOOK_SIGNATURE_HEADER, type WebhookEventKind } from '../../domain/webhooks.js';
import { RECEIPT_STATUSES } from '../../domain/webhook-payloads.js';
import { basicAuthorization, newDeliveryId, webhookBody, webhookDeliveryHeaders } from '../../domain/webhook-delivery.js';
import type { BasicCredentials } from '../types.js';
import { deliveryReceipt, largeMessageReceived, messageReceived, messageWithUnknownFields, orderStatus, type Scene } from './events.js';
import type { ReceiverAnswer } from './post.js';
import { reserialise, type Reserialisation } from './reserialise.js';

/** One request of a check. */
export interface Delivery {
  event: WebhookEventKind;
  body: Buffer;
  headers: Record<string, string>;
}

/** What the checks are built from. */
export interface Kit {
  scene: Scene;
  secret: string;
  basicAuth: BasicCredentials | undefined;
  userAgent: string;
  /** The size of the large-body check's body. */
  largeBodyBytes: number;
}

export interface Judgement {
  passed: boolean;
  /** What to change in the receiver; null when passed. */
  fix: string | null;
  /** The answer the verdict rests on, when it is not simply the last one. */
  answer?: ReceiverAnswer | undefined;
}

export interface CheckSpec {
  id: string;
  name: string;
  required: boolean;
  /** What was sent, in a few words. */
  sent: string;
  /** How many requests deliveries() makes. */
  requests: number;
  deliveries(kit: Kit): Delivery[];
  judge(answers: readonly ReceiverAnswer[], kit: Kit): Judgement;
  /** A correctly signed event the service could send: its answer time counts against the service's timeout. */
  timed: boolean;
  /** Shown whatever the verdict: what prove cannot see from outside. */
  note?: string;
  /** A subtler signature check: when the receiver checks no signature at all, that is the fix to name. */
  signatureDetail?: true;
}

/** The checks that show a receiver verifies no signature at all when they fail. */
export const NO_VERIFICATION_CHECKS: readonly string[] = ['forged-signature', 'missing-signature'];

/** The fix of a subtler signature check when the receiver verifies no signature at all. */
export const NO_VERIFICATION_FIX =
  'It acknowledged this too: the receiver checks no signature at all (see "forged signature"). Once it verifies ' +
  'X-Svc-Signature over the raw body bytes, this check passes as well.';

/** A correctly signed delivery of a payload, with Basic credentials when configured. */
export function signedDelivery(kit: Kit, event: WebhookEventKind, payload: unknown, deliveryId: string = newDeliveryId()): Delivery {
  const body = webhookBody(payload);
  const headers = webhookDeliveryHeaders({
    event,
    deliveryId,
    body,
    userAgent: kit.userAgent,
    secret: kit.secret,
    basicAuth: kit.basicAuth,
  });
  return { event, body, headers };
}

function withHeader(delivery: Delivery, name: string, value: string | undefined): Delivery {
  const headers = { ...delivery.headers };
  if (value === undefined) delete headers[name];
  else headers[name] = value;
  return { ...delivery, headers };
}

const is2xx = (answer: ReceiverAnswer): boolean => answer.status !== null && answer.status >= 200 && answer.status <= 299;

/** A status and, when it said something, the first words of what it said. */
function said(answer: ReceiverAnswer): string {
  const words = answer.excerpt === '' ? '' : `: "${answer.excerpt.length > 60 ? `${answer.excerpt.slice(0, 59)}…` : answer.excerpt}"`;
  return `HTTP ${answer.status ?? '?'}${words}`;
}

/** Whole seconds as they are, anything else to a tenth: 10 s, 10.5 s. */
function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Why an answer that should have been 2xx was not, and what to change. */
function acknowledgeFix(answer: ReceiverAnswer, what: string, kit: Kit): string {
  const status = answer.status;
  if (status === null) {
    if (answer.notReached) return `The receiver could not be reached (${answer.error ?? 'no connection'}); did it stop on an earlier check?`;
    if (answer.error?.startsWith('no answer') === true) {
      return `It did not answer a valid ${what} (${answer.error}): store the event, answer 2xx at once and do the work afterwards.`;
    }
    return `The connection broke off without an answer (${answer.error ?? 'closed'}): answer every correctly signed event with 2xx.`;
  }
  if (status === 401 || status === 403) {
    const credentials = kit.basicAuth
      ? ' and that --basic-auth-env holds the credentials it expects'
      : '; if the receiver requires Basic credentials, give them with --basic-auth-env';
    return (
      `It refused a correctly signed ${what} (${said(answer)}). Compute HMAC-SHA256 over the raw body bytes with the ` +
      `secret as UTF-8 and compare it with the Base64-decoded X-Svc-Signature; check that --secret-env holds the ` +
      `secret the receiver uses${credentials}.`
    );
  }
  if (status >= 300 && status <= 399) {
    return `It answered a redirect (${said(answer)}): the service does not follow redirects, so make the final URL the webhook URI.`;
  }
  if (status === 413) return `It refused the body as too large (${said(answer)}): accept bodies up to 1 MB.`;
  if (status === 415) return `It refused the content type (${said(answer)}): the service sends Content-Type: application/json.`;
  if (status >= 400 && status <= 499) {
    return (
      `It refused a valid ${what} (${said(answer)}): read the fields you need and accept the rest as they come; ` +
      'the service retries a 4xx for up to 24 h.'
    );
  }
  if (status >= 500) {
    return `It failed on a valid ${what} (${said(answer)}): the service retries it for up to 24 h. Find the error in the receiver's log.`;
  }
  return `It answered ${said(answer)}, which is not 2xx: acknowledge a valid ${what} with 2xx.`;
}

/** Every answer 2xx: the event is acknowledged (how fast is the timing check's business). */
function acknowledged(what: string): CheckSpec['judge'] {
  return (answers, kit) => {
    const bad = answers.find((answer) => !is2xx(answer));
    return bad === undefined ? { passed: true, fix: null } : { passed: false, fix: acknowledgeFix(bad, what, kit), answer: bad };
  };
}

/**
 * No answer 2xx: the request is refused. A receiver that could not be reached refused nothing.
 * The fix says what it acknowledged, then what to do.
 */
function refused(what: string, how: string): CheckSpec['judge'] {
  return (answers) => {
    const unreached = answers.find((answer) => answer.notReached);
    if (unreached) {
      return { passed: false, fix: `The receiver could not be reached (${unreached.error ?? 'no connection'}); did it stop on an earlier check?`, answer: unreached };
    }
    const accepted = answers.find(is2xx);
    return accepted === undefined ? { passed: true, fix: null } : { passed: false, fix: `It acknowledged ${what} (HTTP ${accepted.status ?? '?'}). ${how}`, answer: accepted };
  };
}

const SIGNATURE = WEBHOOK_SIGNATURE_HEADER;

function ackCheck(id: string, name: string, sent: string, what: string, build: (kit: Kit) => Delivery): CheckSpec {
  return { id, name, required: true, sent, timed: true, requests: 1, deliveries: (kit) => [build(kit)], judge: acknowledged(what) };
}

const RESERIALISE_WHAT = 'the signed JSON written in other bytes, under the signature of the original';
const RESERIALISE_HOW =
  'It verifies its own re-serialisation of the body, not the bytes received. Compute the HMAC over the raw body ' +
  '(express.raw(), a Fastify buffer parser, Flask request.get_data()) before parsing it.';

function reserialisedCheck(kind: Reserialisation, name: string, sent: string): CheckSpec {
  return {
    id: `reserialised-${kind}`,
    name,
    required: true,
    sent,
    timed: false,
    requests: 1,
    signatureDetail: true,
    deliveries: (kit) => {
      const original = signedDelivery(kit, 'MessageReceived', messageReceived(kit.scene));
      // The original's signature over other bytes of the same JSON.
      return [{ ...original, body: reserialise(original.body, kind) }];
    },
    judge: refused(RESERIALISE_WHAT, RESERIALISE_HOW),
  };
}

/** A MessageReceived signed as the service signs it: what most checks start from. */
const signedMessage = (kit: Kit): Delivery => signedDelivery(kit, 'MessageReceived', messageReceived(kit.scene));

/** The events the service sends, each of which must be acknowledged. */
function acknowledgementChecks(): CheckSpec[] {
  return [
    ackCheck('message-received', 'message received', 'MessageReceived, signed', 'incoming message', signedMessage),
    ackCheck('message-attachments', 'message with attachments', 'MessageReceived + 2 files', 'incoming message with attachments', (kit) =>
      signedDelivery(kit, 'MessageReceived', messageReceived(kit.scene, { attachments: true })),
    ),
    ...RECEIPT_STATUSES.map((status) =>
      ackCheck(`receipt-${status}`, `receipt: ${status}`, `DeliveryReceipt, ${status}`, `${status} delivery receipt`, (kit) =>
        signedDelivery(kit, 'DeliveryReceipt', deliveryReceipt(kit.scene, status)),
      ),
    ),
    ackCheck('order-status', 'order status', 'OrderStatus, Completed', 'order status update', (kit) => signedDelivery(kit, 'OrderStatus', orderStatus(kit.scene))),
  ];
}

const FORGED_SIGNATURE: CheckSpec = {
  id: 'forged-signature',
  name: 'forged signature',
  required: true,
  sent: 'random X-Svc-Signature',
  timed: false,
  requests: 1,
  deliveries: (kit) => [withHeader(signedMessage(kit), SIGNATURE, randomBytes(32).toString('base64'))],
  judge: refused('an event with a made-up X-Svc-Signature', 'Verify the signature before anything else and answer 401 when it does not match.'),
};

const OTHER_SECRET: CheckSpec = {
  id: 'other-secret',
  name: "other secret's signature",
  required: true,
  sent: 'signed with another secret',
  timed: false,
  requests: 1,
  signatureDetail: true,
  deliveries: (kit) => {
    const delivery = signedMessage(kit);
    const foreign = webhookDeliveryHeaders({ event: delivery.event, deliveryId: 'x', body: delivery.body, userAgent: kit.userAgent, secret: randomBytes(24).toString('hex') });
    return [withHeader(delivery, SIGNATURE, foreign[SIGNATURE])];
  },
  judge: refused(
    "an event signed with a secret that is not the tenant's",
    'Compare with your own secret only (during a rotation, the current and the previous one).',
  ),
};

const MISSING_SIGNATURE: CheckSpec = {
  id: 'missing-signature',
  name: 'no signature',
  required: true,
  sent: 'no X-Svc-Signature header',
  timed: false,
  requests: 1,
  deliveries: (kit) => [withHeader(signedMessage(kit), SIGNATURE, undefined)],
  judge: refused('an event without X-Svc-Signature', 'A missing signature is a failed check: answer 401.'),
};

/** What the service would never send, each of which must be refused. */
function signatureChecks(): CheckSpec[] {
  return [
    FORGED_SIGNATURE,
    OTHER_SECRET,
    MISSING_SIGNATURE,
    reserialisedCheck('spaces', 're-serialised: spaces', 'body indented'),
    reserialisedCheck('key-order', 're-serialised: key order', 'keys in reverse order'),
    reserialisedCheck('escapes', 're-serialised: escapes', '\\u and \\/ escapes'),
  ];
}

/** Sent only when the receiver was given Basic credentials: without them there is nothing to refuse. */
const BASIC_AUTH_CHECKS: readonly CheckSpec[] = [
  {
    id: 'basic-auth-wrong',
    name: 'wrong Basic credentials',
    required: true,
    sent: 'signed, wrong Basic password',
    timed: false,
    requests: 1,
    deliveries: (kit) => [withHeader(signedMessage(kit), 'Authorization', basicAuthorization(kit.basicAuth?.username ?? '', randomBytes(12).toString('hex')))],
    judge: refused('a wrong Basic password', 'Compare the user and the password (in constant time) and answer 401 when either differs.'),
  },
  {
    id: 'basic-auth-missing',
    name: 'no Basic credentials',
    required: true,
    sent: 'signed, no Authorization',
    timed: false,
    requests: 1,
    deliveries: (kit) => [withHeader(signedMessage(kit), 'Authorization', undefined)],
    judge: refused('a request without Basic credentials', 'Require them (401 with WWW-Authenticate: Basic), since you configured them.'),
  },
];

/**
 * Every answer 2xx, like acknowledged(); when one is not, `specific` names the fix that this
 * check's situation calls for, or null to give the general one.
 */
function acknowledgedElse(what: string, specific: (bad: ReceiverAnswer, answers: readonly ReceiverAnswer[], kit: Kit) => string | null): CheckSpec['judge'] {
  return (answers, kit) => {
    const bad = answers.find((answer) => !is2xx(answer));
    if (bad === undefined) return { passed: true, fix: null };
    return { passed: false, fix: specific(bad, answers, kit) ?? acknowledgeFix(bad, what, kit), answer: bad };
  };
}

/** True when the first answer acknowledged and the second, the one at issue, did not. */
const secondRefused = (bad: ReceiverAnswer, answers: readonly ReceiverAnswer[]): boolean => bad === answers[1] && is2xx(answers[0]!);

const DUPLICATE_DELIVERY: CheckSpec = {
  id: 'duplicate-delivery',
  name: 'same delivery twice',
  required: false,
  sent: 'one delivery, sent twice',
  timed: true,
  requests: 2,
  deliveries: (kit) => {
    const delivery = signedMessage(kit);
    return [delivery, delivery];
  },
  judge: acknowledgedElse('incoming message', (bad, answers) =>
    secondRefused(bad, answers)
      ? `It refused the second copy (${said(bad)}): answer 2xx to a delivery already handled, without handling it again; the service retries anything else for up to 24 h.`
      : null,
  ),
  note:
    'The service sends an event again, with the same X-Svc-Delivery, whenever an answer is late, lost or not 2xx. ' +
    "prove cannot see what the receiver did with the second copy: handling it twice sends the customer's reply twice. " +
    'Record each X-Svc-Delivery handled, in the same transaction as the work, and answer 2xx to a repeat without handling it again.',
};

const RECEIPTS_OUT_OF_ORDER: CheckSpec = {
  id: 'receipts-out-of-order',
  name: 'receipts out of order',
  required: false,
  sent: 'delivered before sent',
  timed: true,
  requests: 2,
  deliveries: (kit) => {
    const messageId = randomUUID();
    return [
      signedDelivery(kit, 'DeliveryReceipt', deliveryReceipt(kit.scene, 'delivered', messageId)),
      signedDelivery(kit, 'DeliveryReceipt', deliveryReceipt(kit.scene, 'sent', messageId)),
    ];
  },
  judge: acknowledgedElse('delivery receipt', (bad, answers) =>
    secondRefused(bad, answers)
      ? `It refused a "sent" receipt that came after "delivered" (${said(bad)}): acknowledge it and keep the furthest status; retries and parallel deliveries reorder receipts.`
      : null,
  ),
  note: 'Receipts of one message can arrive in any order: keep its furthest status, and never move it from delivered back to sent.',
};

function largeBodyCheck(largeBodyBytes: number): CheckSpec {
  return {
    id: 'large-body',
    name: 'large body',
    required: false,
    sent: `MessageReceived of ${Math.round(largeBodyBytes / 1024)} KB`,
    timed: true,
    requests: 1,
    deliveries: (kit) => [signedDelivery(kit, 'MessageReceived', largeMessageReceived(kit.scene, kit.largeBodyBytes))],
    judge: acknowledgedElse('large incoming message', (bad, _answers, kit) =>
      bad.status === 413 || bad.status === 400
        ? `It refused a ${Math.round(kit.largeBodyBytes / 1024)} KB event (${said(bad)}): the service sends bodies up to 1 MB; raise the body limit (express.raw({ limit: '1mb' }), Fastify bodyLimit, Flask MAX_CONTENT_LENGTH).`
        : null,
    ),
  };
}

const UNKNOWN_FIELDS: CheckSpec = {
  id: 'unknown-fields',
  name: 'unknown fields',
  required: false,
  sent: 'MessageReceived + extras',
  timed: true,
  requests: 1,
  deliveries: (kit) => [signedDelivery(kit, 'MessageReceived', messageWithUnknownFields(kit.scene))],
  judge: acknowledgedElse('incoming message with extra fields', (bad) =>
    bad.status !== null && bad.status >= 400 && bad.status <= 499 && bad.status !== 401 && bad.status !== 403
      ? `It refused an event with fields it does not know (${said(bad)}): the service may add fields at any time; read the ones you need and ignore the rest.`
      : null,
  ),
};

/** What a receiver meets in production that demos never show: advice, not a requirement. */
function advisoryChecks(largeBodyBytes: number): CheckSpec[] {
  return [DUPLICATE_DELIVERY, RECEIPTS_OUT_OF_ORDER, largeBodyCheck(largeBodyBytes), UNKNOWN_FIELDS];
}

/** The battery, in the order it is sent: acknowledgements first, so that an unreachable URL shows at once. */
export function batteryFor(options: { basicAuth: boolean; largeBodyBytes: number }): CheckSpec[] {
  return [
    ...acknowledgementChecks(),
    ...signatureChecks(),
    ...(options.basicAuth ? BASIC_AUTH_CHECKS : []),
    ...advisoryChecks(options.largeBodyBytes),
  ];
}

/** The advisory check of answer times, judged from the timed checks' answers (it sends nothing). */
export function judgeAnswerTime(
  timed: readonly { name: string; answers: readonly ReceiverAnswer[] }[],
  serviceTimeoutMs: number,
): Judgement & { slowest: ReceiverAnswer | undefined; measured: number } {
  let slowest: ReceiverAnswer | undefined;
  let measured = 0;
  const late: string[] = [];
  for (const check of timed) {
    for (const answer of check.answers) {
      if (answer.notReached) continue;
      const timedOut = answer.status === null && answer.error?.startsWith('no answer') === true;
      if (answer.status === null && !timedOut) continue;
      measured++;
      if (slowest === undefined || answer.ms > slowest.ms) slowest = answer;
      if (timedOut) late.push(`${check.name} (no answer in ${seconds(answer.ms)})`);
      else if (answer.ms > serviceTimeoutMs) late.push(`${check.name} (${seconds(answer.ms)})`);
    }
  }
  if (measured === 0) {
    return { passed: false, fix: 'No signed event was answered, so no time could be measured.', slowest, measured };
  }
  if (late.length === 0) return { passed: true, fix: null, slowest, measured };
  const unique = [...new Set(late)];
  return {
    passed: false,
    fix:
      `Answer within ${seconds(serviceTimeoutMs)}: ${unique.join(', ')} took longer. The service gives up at ${seconds(serviceTimeoutMs)} ` +
      'and sends the event again, so a slow receiver handles it twice. Store the event, answer 2xx, then do the work.',
    slowest,
    measured,
  };
}
