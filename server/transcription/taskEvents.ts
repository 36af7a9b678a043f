import { PagedSweep } from '../store/pagedSweep.js';
import type { Collection, Store } from '../store/store.js';
import { stableId } from '../webhooks/deliveries.js';
import type { WebhookEvent } from '../webhooks/model.js';
import type { TaskRecord } from './model.js';

/** Where events go: webhooks/webhooks.ts (emit) and whether an app wants any of a kind. */
export interface EventSink {
  emit(clientId: string, event: WebhookEvent, data: unknown, eventId: string): Promise<unknown>;
  wantsAny(clientId: string, prefix: string): boolean;
}

/** A finished task's event, once it has one: undefined while running, `none` when it never will. */
export type Settled = { event: WebhookEvent; data: unknown } | 'none' | undefined;

interface Watch {
  id: string;
  client_id: string;
}

/**
 * `transcription.completed` / `transcription.failed` when a task reaches SUCCESS or FAILURE
 * on its app's clock. Status is computed, never scheduled (timeline.ts), so a task is
 * "watched" (a stored record, surviving restarts) from submission until its final status is
 * seen: by the webhook pass every housekeeping tick, after a clock move, or at once when the
 * status is forced. Only tasks of apps with an endpoint for transcription events are watched.
 * The event id is derived from the task and the event, so seeing it twice sends it once.
 */
export class TaskEvents {
  private readonly watches: Collection<Watch>;
  private readonly sweeping: PagedSweep<Watch>;

  constructor(
    store: Store,
    private readonly sink: EventSink,
    private readonly settled: (id: string) => Promise<Settled | 'gone'>,
  ) {
    this.watches = store.collection<Watch>('taskWatches');
    this.sweeping = new PagedSweep(this.watches);
  }

  async submitted(rec: TaskRecord): Promise<void> {
    if (!this.sink.wantsAny(rec.client_id, 'transcription.')) return;
    await this.watches.put(rec.transcription_id, { id: rec.transcription_id, client_id: rec.client_id });
  }

  /** A forced status: its event now (when final), whether or not the task was watched. */
  async forced(rec: TaskRecord): Promise<void> {
    await this.check(rec.transcription_id, rec.client_id, true);
  }

  /** One page of watched tasks looked at; resolves to how many events were emitted. */
  sweep(budget: number): Promise<number> {
    return this.sweeping.run(budget, (w) => this.check(w.id, w.client_id, false));
  }

  async resetApp(clientId: string): Promise<void> {
    await this.watches.deleteBy('client_id', clientId);
  }

  private async check(id: string, clientId: string, forced: boolean): Promise<boolean> {
    const s = await this.settled(id);
    if (s === undefined) return false;
    if (s !== 'none' && s !== 'gone')
      await this.sink.emit(clientId, s.event, s.data, stableId('evt', id, s.event));
    if (!forced || (await this.watches.get(id))) await this.watches.delete(id);
    return s !== 'none' && s !== 'gone';
  }
}
