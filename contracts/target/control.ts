import { randomBytes } from 'node:crypto';
import { ControlClient, ControlError } from '../../server/embed/controlClient.js';
import type {
  AppCredentials,
  Control,
  DeviceOffer,
  DeviceRef,
  DeviceState,
  Region,
  Schemas,
} from './types.js';

/**
 * The simulator's control API (`/__admin`) as the `sim` and `url` targets use it to arrange
 * state: the package's typed ControlClient underneath, plus the bookkeeping a run needs.
 *
 * A run on a shared simulator must leave no trace: this remembers every app it creates and
 * every serial the run uses, moves only its own app's clock, and `cleanUp()` removes them.
 */
export class RunControl implements Control {
  private readonly apps = new Set<string>();
  private readonly serials = new Set<string>();
  readonly client: ControlClient;
  /** The app whose clock `advanceClock` moves (the run's own app, once created). */
  clockApp: string | undefined;

  constructor(
    readonly admin: string,
    private readonly region: Region,
    adminToken?: string,
  ) {
    this.client = new ControlClient(admin, adminToken ? { adminToken } : {});
  }

  async createApp(overrides: Partial<Schemas['NewPartnerApp']> = {}): Promise<AppCredentials> {
    const app = await this.client.createApp({ region: this.region, ...overrides });
    this.apps.add(app.client_id);
    return { client_id: app.client_id, secret_key: app.secret_key, api_key: app.api_key };
  }

  async putDevice(sn: string, state: Schemas['DeviceState']): Promise<void> {
    this.serials.add(sn);
    await this.client.putDevice(sn, state);
  }

  async advanceClock(ms: number): Promise<void> {
    await this.client.advanceClock(ms, this.clockApp);
  }

  /** A serial the run uses through the partner API (sign, bind): removed by `cleanUp()`. */
  usedSerial(sn: string): string {
    this.serials.add(sn);
    return sn;
  }

  /**
   * Remove what the run created: its apps (with everything they own) and its devices. Every
   * step is tried, whatever failed before; a serial the run never registered is a 404, fine.
   */
  async cleanUp(): Promise<string[]> {
    const problems: string[] = [];
    const remove = async (step: () => Promise<unknown>) => {
      try {
        await step();
      } catch (e) {
        if (!(e instanceof ControlError && e.status === 404)) problems.push((e as Error).message);
      }
    };
    for (const sn of this.serials) await remove(() => this.client.deleteDevice(sn));
    for (const id of this.apps) await remove(() => this.client.deleteApp(id));
    this.serials.clear();
    this.apps.clear();
    return problems;
  }

  async addFault(rule: Schemas['FaultRule']): Promise<string> {
    return (await this.client.addFault(rule)).id;
  }

  async deleteFault(id: string): Promise<void> {
    await this.client.deleteFault(id);
  }

  async forceTranscription(
    id: string,
    status: Schemas['TranscriptionStatus'],
    message?: string,
  ): Promise<void> {
    await this.client.forceTranscription(id, { status, ...(message ? { message } : {}) });
  }
}

/** Ids unique to this process run, so parallel runs against one simulator never collide. */
export function uniqueIds(): { uniqueId(label: string): string; serial(type: DeviceRef['type']): string } {
  const run = randomBytes(4).toString('hex');
  let n = 0;
  return {
    uniqueId: (label) => `${label}-${run}-${(n++).toString(36)}`,
    serial: (type) =>
      `${type === 'notepro' ? '881' : '882'}C${run.toUpperCase()}${(n++).toString(36).toUpperCase()}`,
  };
}

/** Two `client_user_<uuid>` ids standing for accounts of other partners. */
const OTHER_SUB = 'client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc';
const OLDER_SUB = 'client_user_9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';

/** Arrange a fresh device in `state` through the control API. */
export async function arrangeDevice(
  control: Control,
  serial: (type: DeviceRef['type']) => string,
  state: DeviceState,
): Promise<DeviceOffer> {
  const type = state === 'unbound' ? 'notepins' : 'notepro';
  const device = { type, sn: serial(type) } as DeviceRef;
  const body: Record<DeviceState, Schemas['DeviceState'] | undefined> = {
    boundOther: {
      is_bind: true,
      bind_history: [OTHER_SUB, OTHER_SUB, OLDER_SUB],
      owner: { sub: OTHER_SUB, client_id: 'another-partner-app' },
    },
    unbound: { is_bind: false, bind_history: [OLDER_SUB, OTHER_SUB, OLDER_SUB] },
    neverBound: { is_bind: null, bind_history: [] },
    unknown: undefined,
  };
  const state_ = body[state];
  if (state_) await control.putDevice(device.sn, state_);
  return { device };
}
