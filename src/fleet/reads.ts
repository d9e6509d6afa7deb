// The reads of a fleet run (diff, apply, export), many at once, sharing one pause when the
// service says "slow down". The API client, left to itself, retries each throttled request
// after its own wait: eight reads in flight that meet a 429 then wait eight times and come back
// together, into the same limit. Here the first 429 (or 503 with a Retry-After) starts a pause
// that every read honours: those in flight retry when it ends, and none is sent while it lasts.
// A throttled answer to a read sent before the pause began joins that pause instead of starting
// another. Other passing failures (a dropped connection, a 5xx) are retried per read, with the
// client's budget (4 attempts, backoff with jitter). Reads go on while the run makes progress;
// with no read answered for ten minutes of pauses, the throttle is the error.

import type { ApiClient } from '../api/http.js';
import { listBody, type ListPage } from '../api/lists.js';
import type { PhoneNumber } from '../api/numbers.js';
import type { Tenant } from '../api/tenants.js';
import type { Clock } from '../clock.js';
import type { Order } from '../domain/provisioning.js';
import { CliError, InterruptedError, NetworkError } from '../errors.js';

/** Attempts of one read for a failure that is not a throttle (as the client's own budget). */
const MAX_ATTEMPTS = 4;
/** A Retry-After longer than this is not waited for (as the client). */
const MAX_RETRY_AFTER_MS = 30_000;
/** Throttled this long with no read answered: give up. */
const MAX_STALL_MS = 600_000;
const TRANSIENT_STATUSES = new Set([500, 502, 503, 504]);

/** 250 ms doubling, with full jitter on top of half the step (the client's backoff). */
function backoffMs(step: number): number {
  const base = 250 * 2 ** (step - 1);
  return base / 2 + Math.random() * (base / 2);
}

function isThrottle(error: unknown): error is CliError {
  return error instanceof CliError && (error.status === 429 || (error.status === 503 && error.retryAfterMs !== undefined));
}

function isTransient(error: unknown): boolean {
  if (error instanceof NetworkError) return !error.permanent;
  return error instanceof CliError && error.status !== null && TRANSIENT_STATUSES.has(error.status);
}

/** One pause for every read of a run. */
export class SharedPause {
  /** Counts the pauses begun: a read remembers the count it was sent under. */
  private generation = 0;
  private sleeping: Promise<void> | undefined;
  private lastProgress: number;
  /** Pauses in a row with no read answered (the backoff step when no Retry-After is given). */
  private stalls = 0;
  /** Pauses begun, for tests and the trace. */
  pauses = 0;

  constructor(
    private readonly clock: Clock,
    private readonly signal?: AbortSignal | undefined,
  ) {
    this.lastProgress = clock.monotonic();
  }

  /** Resolves once no pause is under way; the generation a read sent now belongs to. */
  async ready(): Promise<number> {
    while (this.sleeping !== undefined) await this.sleeping;
    return this.generation;
  }

  /** A read was answered: the run makes progress. */
  progress(): void {
    this.lastProgress = this.clock.monotonic();
    this.stalls = 0;
  }

  /**
   * A read sent under `sentIn` was throttled: starts the pause unless one began since it was sent,
   * then resolves when it may be sent again. Throws `error` when the wait asked for is too long or
   * nothing has been answered for MAX_STALL_MS.
   */
  async throttled(sentIn: number, error: CliError): Promise<void> {
    if (sentIn === this.generation) {
      const retryAfter = error.retryAfterMs;
      if (retryAfter !== undefined && retryAfter > MAX_RETRY_AFTER_MS) throw error;
      if (this.clock.monotonic() - this.lastProgress >= MAX_STALL_MS) throw error;
      this.generation++;
      this.pauses++;
      this.stalls++;
      // The service's own word when it gives one; else a backoff that grows while nothing is answered.
      const wait = retryAfter ?? backoffMs(Math.min(this.stalls, 8));
      this.sleeping = this.sleep(wait).finally(() => {
        this.sleeping = undefined;
      });
    }
    await this.ready();
  }

  async sleep(ms: number): Promise<void> {
    try {
      await this.clock.sleep(ms, this.signal);
    } catch {
      throw new InterruptedError();
    }
  }
}

/** The GETs of a fleet run, through one SharedPause. */
export class FleetReads {
  readonly pause: SharedPause;

  constructor(
    readonly api: ApiClient,
    clock: Clock,
    private readonly signal?: AbortSignal | undefined,
  ) {
    this.pause = new SharedPause(clock, signal);
  }

  private async read<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; ) {
      const sentIn = await this.pause.ready();
      try {
        const value = await call();
        this.pause.progress();
        return value;
      } catch (error) {
        if (isThrottle(error)) {
          await this.pause.throttled(sentIn, error);
          continue;
        }
        if (!isTransient(error) || attempt >= MAX_ATTEMPTS) throw error;
        await this.pause.sleep(backoffMs(attempt++));
      }
    }
  }

  async listTenants(): Promise<Tenant[]> {
    return this.read(async () => listBody(await this.api.call('listTenants', { retry: false })).items as Tenant[]);
  }

  async getTenant(tenantId: string): Promise<Tenant> {
    return this.read(async () => (await this.api.call('getTenant', { params: { tenantId }, retry: false })).data as Tenant);
  }

  async listActiveNumbers(page: number, limit: number): Promise<ListPage> {
    return this.read(async () => listBody(await this.api.call('listActiveNumbers', { query: { page, limit }, retry: false })));
  }

  async getPhoneNumber(phoneNumber: string): Promise<PhoneNumber> {
    return this.read(async () => (await this.api.call('getNumber', { params: { phoneNumber }, retry: false })).data as PhoneNumber);
  }

  async getOrder(orderId: string): Promise<Order> {
    return this.read(async () => (await this.api.call('getOrder', { params: { orderId }, retry: false, signal: this.signal })).data as Order);
  }
}
