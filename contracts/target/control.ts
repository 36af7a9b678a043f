import { randomBytes } from 'node:crypto';
import type { AppCredentials, Control, DeviceOffer, DeviceRef, DeviceState, Region } from './types.js';

/** Thrown when the control API refuses an arrangement step; names the step, never a secret. */
export class ArrangeError extends Error {}

/**
 * The simulator's control API (`/__admin`), used by the `sim` and `url` targets to arrange
 * state. Plain fetch: these calls arrange, they are not what the suite checks.
 *
 * A run on a shared simulator must leave no trace: the client remembers every app it creates
 * and every serial the run uses, moves only its own app's clock, and `cleanUp()` removes them.
 */
export class ControlClient implements Control {
  private readonly apps = new Set<string>();
  private readonly serials = new Set<string>();
  /** The app whose clock `advanceClock` moves (the run's own app, once created). */
  clockApp: string | undefined;

  constructor(
    readonly admin: string,
    private readonly region: Region,
    private readonly adminToken?: string,
  ) {}

  private async send(method: string, path: string, json?: unknown): Promise<unknown> {
    const headers: Record<string, string> = {};
    if (json !== undefined) headers['content-type'] = 'application/json';
    if (this.adminToken) headers.authorization = `Bearer ${this.adminToken}`;
    const res = await fetch(`${this.admin}${path}`, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    if (!res.ok) {
      const hint = res.status === 404 ? ' (is this control operation implemented by the simulator?)' : '';
      throw new ArrangeError(
        `control API ${method} ${path} answered ${res.status}${hint}: ${text.slice(0, 300)}`,
      );
    }
    return text ? JSON.parse(text) : undefined;
  }

  async createApp(overrides: Record<string, unknown> = {}): Promise<AppCredentials> {
    const app = (await this.send('POST', '/apps', { region: this.region, ...overrides })) as AppCredentials;
    this.apps.add(app.client_id);
    return { client_id: app.client_id, secret_key: app.secret_key, api_key: app.api_key };
  }

  async putDevice(sn: string, state: Record<string, unknown>): Promise<void> {
    this.serials.add(sn);
    await this.send('PUT', `/devices/${encodeURIComponent(sn)}`, state);
  }

  async advanceClock(ms: number): Promise<void> {
    const only = this.clockApp === undefined ? {} : { client_id: this.clockApp };
    await this.send('POST', '/clock', { advance_ms: Math.round(ms), ...only });
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
    const remove = async (path: string) => {
      try {
        await this.send('DELETE', path);
      } catch (e) {
        if (!/answered 404/.test((e as Error).message)) problems.push((e as Error).message);
      }
    };
    for (const sn of this.serials) await remove(`/devices/${encodeURIComponent(sn)}`);
    for (const id of this.apps) await remove(`/apps/${encodeURIComponent(id)}`);
    this.serials.clear();
    this.apps.clear();
    return problems;
  }

  async addFault(rule: Record<string, unknown>): Promise<string> {
    return ((await this.send('POST', '/faults', rule)) as { id: string }).id;
  }

  async deleteFault(id: string): Promise<void> {
    await this.send('DELETE', `/faults/${encodeURIComponent(id)}`);
  }

  async forceTranscription(id: string, status: string, message?: string): Promise<void> {
    await this.send('PUT', `/transcriptions/${encodeURIComponent(id)}`, {
      status,
      ...(message ? { message } : {}),
    });
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
  const body: Record<string, Record<string, unknown> | undefined> = {
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
