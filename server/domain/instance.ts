import { createHmac } from 'node:crypto';
import { isSimInstant, SimClock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { MirroredCollection, Store } from '../store/store.js';

/**
 * Per-instance facts that must survive restarts: the master secret (token and URL signatures
 * stay valid across a restart with the same data folder), how many times this data folder has
 * started (mixed into the random seed, so ids never repeat after a restart), the clock offset,
 * and whether fixtures were loaded.
 */
export interface InstanceRecord {
  masterSecret: string;
  generation: number;
  clockOffsetMs: number;
  /** Set while the clock is frozen (POST /__admin/clock {"freeze": true}). */
  clockFrozenAt?: number | null;
  /** Explicit moves of the instance clock since the last reset (see SimClock.shiftMs). */
  clockShiftMs?: number;
  seeded: boolean;
  /**
   * Where the master secret came from: `random` (CSPRNG) or `seed` (computable from --seed).
   * Absent in records written before secrets were random: those were all seed-derived.
   */
  secretSource?: 'random' | 'seed';
}

const ID = 'instance';

export class Instance {
  private constructor(
    private readonly meta: MirroredCollection<InstanceRecord>,
    private rec: InstanceRecord,
  ) {
    meta.onChange((id, value) => {
      if (id === ID && value !== undefined && value !== this.rec) {
        this.rec = value;
        if (this.clock) applyClock(this.clock, value);
      }
    });
  }

  private clock: SimClock | undefined;

  /**
   * Keep `clock` on the stored instance clock: with a shared store another instance may move
   * it, and its change arrives here through the mirror (Store.sync).
   */
  follow(clock: SimClock): void {
    this.clock = clock;
  }

  /** The instance clock as stored, built the way every change from elsewhere is applied. */
  makeClock(realNow: () => number = Date.now): SimClock {
    const r = this.rec;
    return new SimClock(r.clockOffsetMs, realNow, r.clockFrozenAt ?? undefined, r.clockShiftMs ?? 0);
  }

  /**
   * Load (or create) the record and count this start. A record whose clock cannot be shown
   * (written by an older version, or edited by hand) is repaired, and `warn` says so, rather
   * than making every start fail the same way.
   */
  static async boot(
    store: Store,
    bootRandom: Random,
    warn: (message: string) => void = () => {},
  ): Promise<Instance> {
    const meta = store.mirrored<InstanceRecord>('meta');
    const secretSource = bootRandom.secure ? 'random' : 'seed';
    // update: instances starting at once on one shared store each count their own start, and
    // only the first of them (no record yet) makes the secret.
    const rec = await meta.update(ID, (prev) => {
      const next: InstanceRecord = prev
        ? repaired(prev, bootRandom, store.shared, warn)
        : { masterSecret: bootRandom.hex(32), secretSource, generation: 0, clockOffsetMs: 0, seeded: false };
      return { next, result: next };
    });
    return new Instance(meta, rec);
  }

  get generation(): number {
    return this.rec.generation;
  }

  get clockOffsetMs(): number {
    return this.rec.clockOffsetMs;
  }

  get clockFrozenAt(): number | undefined {
    return this.rec.clockFrozenAt ?? undefined;
  }

  get clockShiftMs(): number {
    return this.rec.clockShiftMs ?? 0;
  }

  get seeded(): boolean {
    return this.rec.seeded;
  }

  /** A secret for one purpose (`jwt`, `presign`…), derived so purposes never share a key. */
  secret(purpose: string): Buffer {
    return createHmac('sha256', Buffer.from(this.rec.masterSecret, 'hex')).update(purpose).digest();
  }

  /**
   * Move the instance clock as one atomic change of the stored record: `move` acts on a clock
   * built from the stored state (not this process's copy), so two moves on two instances at
   * once both count. The local clock follows the stored result.
   */
  async moveClock(move: (clock: SimClock) => void, realNow: () => number = Date.now): Promise<void> {
    await this.meta.update(ID, (current) => {
      const base = current ?? this.rec;
      const clock = new SimClock(
        base.clockOffsetMs,
        realNow,
        base.clockFrozenAt ?? undefined,
        base.clockShiftMs ?? 0,
      );
      move(clock);
      const next: InstanceRecord = {
        ...base,
        clockOffsetMs: clock.offsetMs,
        clockFrozenAt: clock.frozenAtMs ?? null,
        clockShiftMs: clock.shiftMs,
      };
      return { next, result: undefined };
    });
    this.settle();
  }

  async update(patch: Partial<Omit<InstanceRecord, 'masterSecret'>>): Promise<void> {
    // Merged into the stored record, not ours: another instance may have changed other fields.
    await this.meta.update(ID, (current) => ({
      next: { ...(current ?? this.rec), ...patch },
      result: undefined,
    }));
    this.settle();
  }

  /**
   * After our write: the mirror holds it, or something newer another instance wrote while
   * ours was waiting (our update's own result may already be stale), so follow the mirror.
   */
  private settle(): void {
    const now = this.meta.peek(ID);
    if (now === undefined || now === this.rec) return;
    this.rec = now;
    if (this.clock) applyClock(this.clock, now);
  }
}

/** A stored instance clock onto the running SimClock (as boot builds it). */
function applyClock(clock: SimClock, rec: InstanceRecord): void {
  clock.restore(rec.clockOffsetMs, rec.clockFrozenAt ?? undefined, rec.clockShiftMs ?? 0);
}

/** The stored record, counted as one more start, with anything unusable replaced. */
function repaired(
  prev: InstanceRecord,
  bootRandom: Random,
  shared: boolean,
  warn: (message: string) => void,
): InstanceRecord {
  const rec: InstanceRecord = {
    ...prev,
    generation: Number.isSafeInteger(prev.generation) && prev.generation >= 0 ? prev.generation + 1 : 0,
  };
  const frozen = prev.clockFrozenAt ?? undefined;
  const offsetOk = Number.isFinite(prev.clockOffsetMs) && isSimInstant(Date.now() + prev.clockOffsetMs);
  if (!offsetOk || (frozen !== undefined && !isSimInstant(frozen))) {
    warn(
      `instance record: clock ${JSON.stringify({ offset_ms: prev.clockOffsetMs, frozen_at_ms: prev.clockFrozenAt })} ` +
        'is outside years 1970-9999; the clock is reset to real time (offset 0)',
    );
    rec.clockOffsetMs = 0;
    rec.clockFrozenAt = null;
  }
  if (prev.clockShiftMs !== undefined && !Number.isSafeInteger(prev.clockShiftMs)) rec.clockShiftMs = 0;
  // Replaced even on a shared store: no running instance can be using an unreadable secret
  // (its own boot would have replaced it), and keeping it would sign with an empty key.
  if (typeof prev.masterSecret !== 'string' || !/^[0-9a-f]{64}$/.test(prev.masterSecret)) {
    warn(
      'instance record: the master secret is unreadable; a new one is made (earlier tokens and URLs stop working)',
    );
    rec.masterSecret = bootRandom.hex(32);
    rec.secretSource = bootRandom.secure ? 'random' : 'seed';
  } else if (bootRandom.secure && prev.secretSource !== 'random' && shared) {
    // Other running instances signed tokens and URLs with keys derived from it: replacing it
    // here would break every one of them. Only a start with no other instance running can.
    warn(
      'instance record: the master secret was derived from a seed (guessable); it is kept because other instances sharing this store may be signing with it (to replace it, stop every instance and delete the `meta` record `instance`)',
    );
  } else if (bootRandom.secure && prev.secretSource !== 'random') {
    // A secret anyone could compute from a seed must not outlive the run that chose the seed.
    warn(
      'instance record: the master secret was derived from a seed (guessable); a random one replaces it (earlier tokens and URLs stop working)',
    );
    rec.masterSecret = bootRandom.hex(32);
    rec.secretSource = 'random';
  }
  return rec;
}
