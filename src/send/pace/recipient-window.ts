import { WindowSchedule, type WindowHours } from './window.js';

// Quiet hours in each recipient's own time (`--window` with `--tz-column NAME` or `--tz auto`):
// one window of hours, read in every recipient's zone. Recipients are grouped by their zones (a
// handful of groups for any list); the engine asks a group, at the instant it would launch, whether
// its window is open, and holds the recipients of a closed group until it opens, sending the
// others meanwhile.
//
// A number may have several zones (libphonenumber gives Alaska's area code two, and a toll-free
// number every zone of its country): its window is open only when it is open in all of them. A
// recipient whose zone cannot be told (an empty zone cell, a number the data does not place), or
// whose zones share no hour of the window, is never sent by guess: the filter holds it back and
// the run names it.

const DAY = 86_400_000;
/** How far ahead an opening is looked for before a group is declared never open. */
const HORIZON = 8 * DAY;

export type ZoneSource = { kind: 'column'; column: string } | { kind: 'auto' };

/** Each recipient's zones, from a CSV column or the number; undefined when they cannot be told. */
export type ZonesOf = (to: string, fields: Readonly<Record<string, string>>) => readonly string[] | undefined;

export class ZoneGroup {
  private openUntil = -Infinity;

  constructor(
    readonly key: string,
    readonly schedules: readonly WindowSchedule[],
  ) {}

  get zones(): string[] {
    return this.schedules.map((schedule) => schedule.window.timeZone);
  }

  isOpen(now: number): boolean {
    if (now < this.openUntil) return true;
    for (const schedule of this.schedules) if (!schedule.isOpen(now)) return false;
    let until = Infinity;
    for (const schedule of this.schedules) until = Math.min(until, schedule.nextChange(now));
    this.openUntil = until;
    return true;
  }

  /** The first instant at or after `now` when the window is open in every zone, or undefined within eight days. */
  nextOpening(now: number): number | undefined {
    let at = now;
    for (let step = 0; step < 64 && at - now <= HORIZON; step++) {
      let latest = at;
      for (const schedule of this.schedules) latest = Math.max(latest, schedule.nextOpening(at));
      if (latest === at) return at;
      at = latest;
    }
    return undefined;
  }

  /** `2026-03-08 08:00 America/Chicago`, or the UTC time and the zones for several. */
  describe(instant: number): string {
    if (this.schedules.length === 1) return this.schedules[0]!.describe(instant);
    const iso = new Date(instant).toISOString();
    return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC (${this.zones.join(', ')})`;
  }
}

export class RecipientWindows {
  private readonly schedules = new Map<string, WindowSchedule>();
  private readonly groups = new Map<string, ZoneGroup | null>();

  constructor(
    readonly hours: WindowHours,
    readonly source: ZoneSource,
    private readonly zonesOf: ZonesOf,
    private readonly now: () => number,
  ) {}

  /** `--tz-column tz` or `--tz auto`, for messages. */
  get sourceText(): string {
    return this.source.kind === 'auto' ? '--tz auto' : `--tz-column ${this.source.column}`;
  }

  private schedule(zone: string): WindowSchedule {
    let schedule = this.schedules.get(zone);
    if (schedule === undefined) {
      schedule = new WindowSchedule({ ...this.hours, timeZone: zone, intlTimeZone: zone });
      this.schedules.set(zone, schedule);
    }
    return schedule;
  }

  /** The recipient's group, or undefined when its zone cannot be told or its window never opens. */
  groupOf(to: string, fields: Readonly<Record<string, string>>): ZoneGroup | undefined {
    const zones = this.zonesOf(to, fields);
    if (zones === undefined || zones.length === 0) return undefined;
    const key = zones.length === 1 ? zones[0]! : [...new Set(zones)].sort().join(' ');
    let group = this.groups.get(key);
    if (group === undefined) {
      try {
        const made = new ZoneGroup(key, key.split(' ').map((zone) => this.schedule(zone)));
        group = made.nextOpening(this.now()) === undefined ? null : made;
      } catch {
        group = null; // a zone this system's Intl does not know: it cannot be told
      }
      this.groups.set(key, group);
    }
    return group ?? undefined;
  }

  /** A group by its key (a request carries the key of its recipient's group). */
  group(key: string): ZoneGroup | undefined {
    return this.groups.get(key) ?? undefined;
  }
}
