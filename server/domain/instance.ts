import { createHmac } from 'node:crypto';
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
}

const ID = 'instance';

export class Instance {
  private constructor(
    private readonly store: Store,
    private rec: InstanceRecord,
  ) {}

  /** Load (or create) the record and count this start. */
  static async boot(store: Store, bootRandom: Random): Promise<Instance> {
    const col = store.collection<InstanceRecord>('meta');
    const prev = col.get(ID);
    const rec: InstanceRecord = prev
      ? { ...prev, generation: prev.generation + 1 }
      : { masterSecret: bootRandom.hex(32), generation: 0, clockOffsetMs: 0, seeded: false };
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
