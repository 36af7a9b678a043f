import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { components as AdminComponents } from '../spec/admin-types.js';
import type { components } from '../spec/api-types.js';
import { fixtureError, readFixture } from '../spec/fixtures.js';
import type { Collection, Store } from '../store/store.js';
import {
  type BindAnswer,
  type Binding,
  bindAnswerOf,
  bindingOf,
  bound,
  checkType,
  type DeviceOwner,
  type DeviceRecord,
  type DeviceView,
  normalizeSerial,
  signedDevice,
  unbound,
  viewOf,
} from './deviceModel.js';

/** A device as named by a partner request: where its fields came from decides error `loc`s. */
export type DeviceRef = components['schemas']['DeviceRef'];
type Source = 'query' | 'body';

/**
 * The control API's (and the fixtures') description of a device state: admin.openapi.yaml
 * DeviceState, whose bind_history defaults to [] (so fixtures may leave it out).
 */
export type DeviceState = Omit<AdminComponents['schemas']['DeviceState'], 'bind_history'> & {
  bind_history?: string[];
};

/** An entry of fixtures/devices.json: a state plus its serial and what it reproduces. */
export interface DeviceFixture extends DeviceState {
  sn: string;
  note?: string;
}

/** Owner client id recorded when the control API binds a device without naming its owner. */
export const UNKNOWN_CLIENT = 'unknown';
const CLIENT_USER = /^client_user_\S+$/;

/**
 * The device registry: one world shared by every partner app and both regions, because a
 * device is physical and its history spans apps (as on the live service). One record per
 * serial; bind events only ever append.
 */
export class DeviceRegistry implements Lifecycle {
  private readonly devices: Collection<DeviceRecord>;

  constructor(
    store: Store,
    private readonly random: Random,
  ) {
    this.devices = store.collection<DeviceRecord>('devices');
  }

  /** Binding query: a serial that was never signed is the spec's bare 404. */
  binding(ref: DeviceRef, from: Source): Binding {
    const rec = this.lookup(ref, from);
    if (!rec) throw SimError.bareNotFound();
    return bindingOf(rec);
  }

  /** Register a serial (`is_bind: null`); a known serial is left as it is. */
  async sign(ref: DeviceRef, from: Source): Promise<Binding> {
    const rec = this.lookup(ref, from);
    if (rec) return bindingOf(rec);
    const fresh = signedDevice(normalizeSerial(ref.sn), ref.type);
    await this.devices.put(fresh.sn, fresh);
    return bindingOf(fresh);
  }

  async bind(ref: DeviceRef, from: Source, caller: DeviceOwner): Promise<BindAnswer> {
    const next = bound(this.mustExist(ref, from), { sub: caller.sub, client_id: caller.client_id });
    await this.devices.put(next.sn, next);
    return bindAnswerOf(next);
  }

  async unbind(ref: DeviceRef, from: Source, caller: DeviceOwner): Promise<BindAnswer> {
    const rec = this.mustExist(ref, from);
    const next = unbound(rec, caller);
    if (next !== rec) await this.devices.put(next.sn, next);
    return bindAnswerOf(next);
  }

  list(): DeviceView[] {
    return this.devices
      .list()
      .sort((a, b) => (a.sn < b.sn ? -1 : a.sn > b.sn ? 1 : 0))
      .map(viewOf);
  }

  get(sn: string): DeviceView {
    const rec = this.devices.get(normalizeSerial(sn));
    if (!rec) throw notFound();
    return viewOf(rec);
  }

  /**
   * Create or replace a device in exactly the given state. With `is_bind: true` and no
   * owner, the owner is the newest history entry (client id `unknown`), else a fresh
   * `client_user_<uuid>` no partner user holds. The history is kept exactly as given.
   */
  async put(rawSn: string, state: DeviceState): Promise<DeviceView> {
    const sn = normalizeSerial(rawSn);
    const { type, history } = checkState(sn, state, ['body']);
    let owner: DeviceOwner | null = null;
    if (state.is_bind === true) {
      owner = state.owner
        ? { sub: state.owner.sub, client_id: state.owner.client_id }
        : { sub: history[0] ?? `client_user_${this.random.uuid()}`, client_id: UNKNOWN_CLIENT };
    }
    const rec: DeviceRecord = {
      sn,
      type,
      owner,
      released: state.is_bind !== null,
      bind_events: history.toReversed(),
    };
    await this.devices.put(sn, rec);
    return viewOf(rec);
  }

  /**
   * An app is being deleted: release every device one of its users holds (history kept), since
   * nobody could unbind it afterwards. An admin call, so a scan of the registry is fine.
   */
  async releaseApp(clientId: string): Promise<number> {
    const held = this.devices.filter((d) => d.owner?.client_id === clientId);
    for (const rec of held) await this.devices.put(rec.sn, { ...rec, owner: null, released: true });
    return held.length;
  }

  async remove(sn: string): Promise<void> {
    if (!(await this.devices.delete(normalizeSerial(sn)))) throw notFound();
  }

  /** fixtures/devices.json, checked against the control API's schema and its rules. */
  private async fixtures(dir: string): Promise<DeviceFixture[]> {
    const list = (await readFixture<DeviceFixture[]>(dir, 'devices.json')) ?? [];
    list.forEach(({ sn, note: _note, ...state }, i) => {
      try {
        checkState(normalizeSerial(sn), state, ['fixtures', 'devices.json', i]);
      } catch (e) {
        if (e instanceof SimError && e.issues) throw fixtureError('devices.json', e.issues);
        throw e;
      }
    });
    return list;
  }

  async checkFixtures(dir: string): Promise<void> {
    await this.fixtures(dir);
  }

  /** Load fixtures/devices.json through `put`, so fixtures obey the control API's rules. */
  async seed(dir: string): Promise<void> {
    for (const { sn, note: _note, ...state } of await this.fixtures(dir)) {
      if (this.devices.has(normalizeSerial(sn))) continue;
      await this.put(sn, state);
    }
  }

  private lookup(ref: DeviceRef, from: Source): DeviceRecord | undefined {
    const sn = normalizeSerial(ref.sn);
    checkType(sn, ref.type, [from, 'type']);
    return this.devices.get(sn);
  }

  private mustExist(ref: DeviceRef, from: Source): DeviceRecord {
    const rec = this.lookup(ref, from);
    if (!rec) throw notFound();
    return rec;
  }
}

/**
 * The rules of a device state a schema cannot express, `at` the location of the state
 * (`['body']` for the control API, an entry of fixtures/devices.json for fixtures).
 */
function checkState(
  sn: string,
  state: DeviceState,
  at: (string | number)[],
): { type: ReturnType<typeof checkType>; history: string[] } {
  const type = checkType(sn, state.type, [...at, 'type']);
  const history = state.bind_history ?? [];
  history.forEach((id, i) => {
    if (typeof id !== 'string' || !CLIENT_USER.test(id)) {
      throw SimError.invalidField(
        [...at, 'bind_history', i],
        'Entries must be client_user_<uuid> ids',
        'value_error',
        id,
      );
    }
  });
  if (state.is_bind !== true && state.owner) {
    throw SimError.invalidField([...at, 'owner'], 'owner is only allowed with is_bind: true');
  }
  if (state.is_bind === null && history.length > 0) {
    throw SimError.invalidField(
      [...at, 'bind_history'],
      'is_bind: null means signed but never bound, so bind_history must be empty',
    );
  }
  return { type, history };
}

const notFound = (): SimError => SimError.notFound('DEVICE_NOT_FOUND', 'Unknown device serial number.');
