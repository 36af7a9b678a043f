import { createHmac } from 'node:crypto';
import { isSimInstant } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { Store } from '../store/store.js';

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
    private readonly store: Store,
    private rec: InstanceRecord,
  ) {}

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
    const col = store.collection<InstanceRecord>('meta');
    const prev = col.get(ID);
    const secretSource = bootRandom.secure ? 'random' : 'seed';
    const rec: InstanceRecord = prev
      ? repaired(prev, bootRandom, warn)
      : { masterSecret: bootRandom.hex(32), secretSource, generation: 0, clockOffsetMs: 0, seeded: false };
    await col.put(ID, rec);
    return new Instance(store, rec);
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

  async update(patch: Partial<Omit<InstanceRecord, 'masterSecret'>>): Promise<void> {
    this.rec = { ...this.rec, ...patch };
    await this.store.collection<InstanceRecord>('meta').put(ID, this.rec);
  }
}

/** The stored record, counted as one more start, with anything unusable replaced. */
function repaired(prev: InstanceRecord, bootRandom: Random, warn: (message: string) => void): InstanceRecord {
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
  if (typeof prev.masterSecret !== 'string' || !/^[0-9a-f]{64}$/.test(prev.masterSecret)) {
    warn(
      'instance record: the master secret is unreadable; a new one is made (earlier tokens and URLs stop working)',
    );
    rec.masterSecret = bootRandom.hex(32);
    rec.secretSource = bootRandom.secure ? 'random' : 'seed';
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
