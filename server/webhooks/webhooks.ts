import type { Logger } from 'pino';
import type { ClockOf } from '../core/clock.js';
import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { Store } from '../store/store.js';
import { Deliveries, type PickedFault, publicDelivery } from './deliveries.js';
import { Dispatcher } from './dispatcher.js';
import type { WebhookEgress } from './egress.js';
import { WebhookEndpoints } from './endpoints.js';
import type { WebhookDelivery, WebhookEvent } from './model.js';

export interface WebhookOptions {
  /** Deadline of one delivery POST (real ms); default 10 s. */
  timeoutMs?: number;
  /** POSTs in flight at once in this instance; default 16. */
  maxInFlight?: number;
  realNow?: () => number;
  userAgent?: string;
  /** Where deliveries may go (`--webhook-egress`); default: anywhere. */
  egress?: WebhookEgress;
  /** Deliveries each app's log keeps (`--keep-per-app`). */
  keepPerApp?: number;
}

export interface WebhookDeps {
  store: Store;
  random: Random;
  clockOf: ClockOf;
  logger: Logger;
  faultFor: (clientId: string, event: string) => Promise<PickedFault | undefined>;
}

/** Looks for events to emit (e.g. tasks that finished on their app's clock) before each pass. */
export type EventSource = (budget: number) => Promise<number>;

const DEFAULT_TIMEOUT_MS = 10_000;
const SOURCE_BUDGET = 200;

/**
 * Webhooks: endpoints per app, `emit` for any domain module (transcription, devices),
 * and delivery on each app's simulated clock from stored state (deliveries.ts,
 * dispatcher.ts). `tick` is the one way work starts: the housekeeper calls it every tick, the
 * control API after a clock move, `emit` after a new event; it never waits for a receiver.
 */
export class Webhooks implements Lifecycle {
  readonly endpoints: WebhookEndpoints;
  readonly deliveries: Deliveries;
  private readonly dispatcher: Dispatcher;
  private readonly sources: EventSource[] = [];
  private running: Promise<number> | undefined;
  private again = false;

  constructor(
    private readonly deps: WebhookDeps,
    opts: WebhookOptions = {},
  ) {
    const now = (clientId: string) => deps.clockOf(clientId).now();
    const realNow = opts.realNow ?? Date.now;
    this.endpoints = new WebhookEndpoints(deps.store, deps.random.fork('endpoints'), now, opts.egress);
    this.deliveries = new Deliveries({
      store: deps.store,
      random: deps.random.fork('deliveries'),
      now,
      realNow,
      faultFor: deps.faultFor,
      keepPerApp: opts.keepPerApp,
    });
    this.dispatcher = new Dispatcher(
      {
        deliveries: this.deliveries,
        endpoint: (id) => this.endpoints.record(id),
        now,
        onError: (e) => deps.logger.warn({ err: e }, 'webhook delivery failed'),
      },
      {
        timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        maxInFlight: opts.maxInFlight ?? 16,
        realNow,
        instanceId: deps.random.fork('instance').hex(8),
        userAgent: opts.userAgent ?? 'partner-sim-webhooks',
        egress: opts.egress,
      },
    );
  }

  addSource(source: EventSource): void {
    this.sources.push(source);
  }

  /**
   * Send `event` with `data` to every enabled endpoint of the app that wants it. `eventId`
   * makes it idempotent: the same id emitted again creates nothing new. Resolves once the
   * deliveries are stored (sending happens in the background).
   */
  async emit(
    clientId: string,
    event: WebhookEvent,
    data: unknown,
    eventId: string,
  ): Promise<WebhookDelivery[]> {
    const made: WebhookDelivery[] = [];
    for (const ep of this.endpoints.wanting(clientId, event)) {
      const d = await this.deliveries.create(ep, event, eventId, data);
      if (d) made.push(publicDelivery(d));
    }
    if (made.length > 0) this.kick();
    return made;
  }

  /** A sample event to one endpoint, paused or not, whatever it wants. */
  async sendTest(clientId: string, endpointId: string, event: WebhookEvent = 'transcription.completed') {
    const ep = this.endpoints.get(clientId, endpointId);
    const eventId = `evt_test_${this.deps.random.hex(10)}`;
    const d = await this.deliveries.create(ep, event, eventId, sampleData(event, eventId));
    this.kick();
    return publicDelivery(d!);
  }

  async redeliver(clientId: string, deliveryId: string): Promise<WebhookDelivery> {
    const of = await this.deliveries.get(clientId, deliveryId);
    if (!this.endpoints.record(of.endpoint_id))
      throw SimError.notFound(
        'WEBHOOK_NOT_FOUND',
        `The endpoint ${of.endpoint_id} of this delivery was removed.`,
      );
    const d = await this.deliveries.again(of, 'redeliver');
    this.kick();
    return publicDelivery(d);
  }

  /**
   * Look for new events, then start sending what is due. Overlapping calls share one pass and
   * one more follows (what changed meanwhile is seen). Resolves to how many endpoints started.
   */
  tick(): Promise<number> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.pass().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
    return this.running;
  }

  kick(): void {
    this.tick().catch((e: unknown) => this.deps.logger.warn({ err: e }, 'webhook pass failed'));
  }

  /** Nothing running: every pass and every POST finished (tests, shutdown). */
  async idle(): Promise<void> {
    do {
      await this.running?.catch(() => 0);
      await this.dispatcher.idle();
    } while (this.running);
  }

  async stop(): Promise<void> {
    await this.running?.catch(() => 0);
    await this.dispatcher.stop();
  }

  async resetApp(clientId: string): Promise<void> {
    await this.deliveries.resetApp(clientId);
  }

  /** With the app: its endpoints too. */
  async removeApp(clientId: string): Promise<void> {
    await this.endpoints.removeApp(clientId);
    await this.deliveries.resetApp(clientId);
  }

  private async pass(): Promise<number> {
    // Mirrors (endpoints, app clocks) as other instances left them: a pass runs off any request.
    await this.deps.store.sync();
    for (const source of this.sources) await source(SOURCE_BUDGET);
    return this.dispatcher.pass();
  }
}

function sampleData(event: WebhookEvent, eventId: string): Record<string, unknown> {
  if (event.startsWith('transcription.')) {
    const failed = event === 'transcription.failed';
    return {
      transcription_id: `task_exec_test_${eventId.slice(-10)}`,
      status: failed ? 'FAILURE' : 'SUCCESS',
      data: failed ? {} : { text: 'This is a test event.', duration: 2.1 },
      ...(failed ? { message: 'Transcription failed.' } : {}),
      test: true,
    };
  }
  return { ...DEVICE_SAMPLES[event], sn: 'TEST00000000001', test: true };
}

/** Samples in the shape the virtual recorders send (domain/deviceEvents.ts). */
const SAMPLE_USER = 'client_user_00000000-0000-4000-8000-000000000000';
const SAMPLE_RECORDING = {
  session_id: 1893456000,
  start_time: '2030-01-01T00:00:00.000Z',
  duration_s: 12.5,
  size: 100000,
  scene: 0,
};
/** OTA events have no cause in the model, so no shape: their samples are `{sn, test}`. */
const DEVICE_SAMPLES: Partial<Record<WebhookEvent, Record<string, unknown>>> = {
  'device.connected': { phone_id: 'ph_test', user: SAMPLE_USER },
  'device.disconnected': { phone_id: 'ph_test', user: SAMPLE_USER, reason: 'disconnect' },
  'device.recording_completed': { user: SAMPLE_USER, recording: SAMPLE_RECORDING },
  'device.synced': { phone_id: 'ph_test', user: SAMPLE_USER, recording: SAMPLE_RECORDING },
  'device.battery_low': { user: SAMPLE_USER, battery: 14, threshold: 15 },
};
