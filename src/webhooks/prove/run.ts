// Runs the battery against one receiver: one request at a time (the order is part of some
// checks), each bounded by the per-request timeout and all by the run's deadline, to the one URL
// given. The result is data; src/webhooks/prove/report.ts renders it.

import type { Clock } from '../../clock.js';
import { LARGEST_WEBHOOK_BODY_BYTES, WEBHOOK_ANSWER_TIMEOUT_MS } from '../../domain/webhook-delivery.js';
import type { BasicCredentials } from '../types.js';
import { batteryFor, judgeAnswerTime, NO_VERIFICATION_CHECKS, NO_VERIFICATION_FIX, type CheckSpec, type Kit } from './checks.js';
import { newScene } from './events.js';
import { openTarget, type PostTarget, type ReceiverAnswer } from './post.js';

/** The large-body check stays this far below the largest body, so a receiver with a 1 MB limit takes it. */
const LARGE_BODY_MARGIN_BYTES = 4 * 1024;

export interface ProveOptions {
  url: URL;
  secret: string;
  basicAuth?: BasicCredentials | undefined;
  /** Each request's bound. */
  timeoutMs: number;
  /** The whole run's bound: checks not started by then are failed as not sent. */
  deadlineMs: number;
  /** The time the service gives an endpoint (10 s); tests shorten it. */
  serviceTimeoutMs?: number;
  clock: Clock;
  /** Stops the run (Ctrl-C): the request under way is cut off. */
  signal: AbortSignal;
  userAgent: string;
  /** Before each check is sent. */
  onCheck?: (index: number, total: number, name: string) => void;
}

export interface CheckAnswer {
  status: number | null;
  ms: number | null;
  error: string | null;
  /** The first words of the answer's body. */
  body: string;
}

export interface CheckResult {
  id: string;
  name: string;
  required: boolean;
  verdict: 'passed' | 'failed';
  sent: string;
  /** The answer the verdict rests on: the first wrong one, else the last (the slowest for the timing check). */
  received: CheckAnswer;
  /** Every answer of the check, in the order sent (none for the timing check). */
  answers: CheckAnswer[];
  fix: string | null;
  note: string | null;
}

export interface ProveResult {
  url: string;
  passed: boolean;
  /** Requests sent (the battery's size, less any the deadline stopped). */
  requests: number;
  serviceTimeoutMs: number;
  checks: CheckResult[];
}

/** The receiver could not be reached at all: nothing was checked. */
export class ReceiverUnreachable extends Error {}

/** The number of requests a run sends: the battery is fixed, so this is its bound. */
export function batterySize(basicAuth: boolean): number {
  return batteryFor({ basicAuth, largeBodyBytes: 0 }).reduce((sum, check) => sum + check.requests, 0);
}

function isSuccess(status: number | null): boolean {
  return status !== null && status >= 200 && status <= 299;
}

function shown(answer: ReceiverAnswer | undefined): CheckAnswer {
  if (answer === undefined) return { status: null, ms: null, error: 'not sent', body: '' };
  return { status: answer.status, ms: Math.round(answer.ms), error: answer.error, body: answer.excerpt };
}

export async function proveReceiver(options: ProveOptions): Promise<ProveResult> {
  const { clock } = options;
  const serviceTimeoutMs = options.serviceTimeoutMs ?? WEBHOOK_ANSWER_TIMEOUT_MS;
  const largeBodyBytes = LARGEST_WEBHOOK_BODY_BYTES - LARGE_BODY_MARGIN_BYTES;
  const kit: Kit = {
    scene: newScene(() => new Date(clock.now())),
    secret: options.secret,
    basicAuth: options.basicAuth,
    userAgent: options.userAgent,
    largeBodyBytes,
  };
  const battery = batteryFor({ basicAuth: options.basicAuth !== undefined, largeBodyBytes });
  const target = await openTarget(options.url, clock);
  let run: BatteryRun;
  try {
    run = await sendBattery(battery, kit, target, options);
  } finally {
    target.close();
  }
  const { results, timed, requests } = run;
  nameMissingVerification(results, battery);
  results.push(answerTimeResult(timed, serviceTimeoutMs));
  return {
    url: options.url.href,
    passed: results.every((result) => !result.required || result.verdict === 'passed'),
    requests,
    serviceTimeoutMs,
    checks: results,
  };
}

/** What sending the battery gave: a result per check, the timed checks' answers, the requests sent. */
interface BatteryRun {
  results: CheckResult[];
  timed: { name: string; answers: ReceiverAnswer[] }[];
  requests: number;
}

/** Sends every check in order, one request at a time, within the run's deadline. */
async function sendBattery(battery: readonly CheckSpec[], kit: Kit, target: PostTarget, options: ProveOptions): Promise<BatteryRun> {
  const { clock } = options;
  const deadlineAt = clock.now() + options.deadlineMs;
  const run: BatteryRun = { results: [], timed: [], requests: 0 };
  for (const [index, check] of battery.entries()) {
    options.onCheck?.(index, battery.length, check.name);
    const answers: ReceiverAnswer[] = [];
    let stopped = false;
    for (const delivery of check.deliveries(kit)) {
      const remaining = deadlineAt - clock.now();
      if (remaining <= 0) {
        stopped = true;
        break;
      }
      const answer = await target.post(delivery.body, delivery.headers, { timeoutMs: Math.min(options.timeoutMs, remaining), signal: options.signal });
      run.requests++;
      if (run.requests === 1 && answer.notReached) {
        throw new ReceiverUnreachable(`cannot reach ${options.url.href}: ${answer.error ?? 'no connection'}`);
      }
      answers.push(answer);
    }
    if (stopped) {
      run.results.push(notCheckedResult(check, answers, options.deadlineMs));
      continue;
    }
    if (check.timed) run.timed.push({ name: check.name, answers });
    run.results.push(judgedResult(check, answers, kit));
  }
  return run;
}

function judgedResult(check: CheckSpec, answers: ReceiverAnswer[], kit: Kit): CheckResult {
  const judgement = check.judge(answers, kit);
  const deciding = judgement.answer ?? answers[answers.length - 1];
  return {
    id: check.id,
    name: check.name,
    required: check.required,
    verdict: judgement.passed ? 'passed' : 'failed',
    sent: check.sent,
    received: shown(deciding),
    answers: answers.map(shown),
    fix: judgement.fix,
    note: check.note ?? null,
  };
}

/** A check the run's deadline stopped before all its requests were sent. */
function notCheckedResult(check: CheckSpec, answers: ReceiverAnswer[], deadlineMs: number): CheckResult {
  return {
    id: check.id,
    name: check.name,
    required: check.required,
    verdict: 'failed',
    sent: check.sent,
    received: shown(undefined),
    answers: answers.map(shown),
    fix: `Not checked: the run's deadline (${Math.round(deadlineMs / 1000)} s) passed first. The receiver answers too slowly to be checked in full; see "time to answer".`,
    note: check.note ?? null,
  };
}

/**
 * A receiver that takes a forged or unsigned event checks no signature: that is the one fix to
 * name, not a different diagnosis for each subtler signature check it also fails.
 */
function nameMissingVerification(results: CheckResult[], battery: readonly CheckSpec[]): void {
  const acknowledgedForgery = results.some((r) => NO_VERIFICATION_CHECKS.includes(r.id) && r.verdict === 'failed' && isSuccess(r.received.status));
  if (!acknowledgedForgery) return;
  const detailed = new Set(battery.filter((check) => check.signatureDetail === true).map((check) => check.id));
  for (const result of results) if (detailed.has(result.id) && result.verdict === 'failed' && isSuccess(result.received.status)) result.fix = NO_VERIFICATION_FIX;
}

/** The advisory timing check, judged from the answers of the timed checks. */
function answerTimeResult(timed: BatteryRun['timed'], serviceTimeoutMs: number): CheckResult {
  const timing = judgeAnswerTime(timed, serviceTimeoutMs);
  const timedCount = timed.reduce((sum, check) => sum + check.answers.length, 0);
  return {
    id: 'answer-time',
    name: 'time to answer',
    required: false,
    verdict: timing.passed ? 'passed' : 'failed',
    sent: `the ${timedCount} signed events above`,
    received: shown(timing.slowest),
    answers: [],
    fix: timing.fix,
    note: null,
  };
}
