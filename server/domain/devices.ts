import { SimError } from '../core/errors.js';
import type { Lifecycle } from '../core/lifecycle.js';
import type { Random } from '../core/random.js';
import type { components as AdminComponents } from '../spec/admin-types.js';
import type { components } from '../spec/api-types.js';
import { fixtureError, readFixture } from '../spec/fixtures.js';
import { AppBound } from '../store/appBound.js';
import { type Page, type PageQuery, recordPage } from '../store/recordPage.js';
import type { Collection, Store } from '../store/store.js';
import type { Region } from './apps.js';
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
import { SdkKeys } from './sdkKeys.js';

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
const UNKNOWN_CLIENT = 'unknown';
const CLIENT_USER = /^client_user_\S+$/;

/**
 * The device registry: one world shared by every partner app and both regions, because a
 * device is physical and its history spans apps (as on the live service). One record per
 * serial; bind events only ever append.
 */
export class DeviceRegistry implements Lifecycle {
  private readonly devices: Collection<DeviceRecord>;
  /**
   * Serials a partner's sn-sign registered are counted against its app (`signed_by`): the
   * newest `--keep-per-app` stay, older ones are forgotten (404 as never signed), so a fleet
   * signing fresh serials does not grow the world for good. Devices put through the control
   * API or the fixtures belong to no app and stay.
   */
  readonly bound: AppBound<DeviceRecord>;

  constructor(
    store: Store,
    private readonly random: Random,
    /** Serial signatures and SDK key pairs; tests that never sign may leave it out. */
    private readonly keys: SdkKeys = new SdkKeys(),
    bounds: { keepPerApp?: number | undefined; now?: () => number } = {},
  ) {
    this.devices = store.collection<DeviceRecord>('devices');
    this.now = bounds.now ?? Date.now;
    this.bound = new AppBound({
      name: 'devices signed',
      collection: this.devices,
      keep: bounds.keepPerApp ?? 0,
      field: 'signed_by',
      order: 'signed_ms',
      drop: (sn) => this.devices.delete(sn),
    });
  }

  private readonly now: () => number;

  /** Binding query: a serial that was never signed is the spec's bare 404. */
  async binding(ref: DeviceRef, from: Source): Promise<Binding> {
    const rec = await this.devices.get(this.serialOf(ref, from));
    if (!rec) throw SimError.bareNotFound();
    return bindingOf(rec);
  }

  /** sn-sign: register the serial (if new) and answer its signature (the region's key) with its binding. */
  async signed(ref: DeviceRef, region: Region, clientId?: string): Promise<Binding & { signature: string }> {
    const binding = await this.sign(ref, 'body', clientId);
    const sn = normalizeSerial(ref.sn);
    const type = checkType(sn, ref.type, ['body', 'type']);
    return { signature: await this.keys.signature(region, type, sn), ...binding };
  }

  /** sn-verify: is `signature` what sn-sign answers for this serial and type in this region? */
  async verify(ref: DeviceRef & { signature: string }, region: Region): Promise<{ is_valid: boolean }> {
    const sn = this.serialOf(ref, 'body');
    return { is_valid: await this.keys.verify(region, ref.type, sn, ref.signature) };
  }

  /** gen-key: the SDK's RSA key pair. */
  keyPair() {
    return this.keys.keyPair();
  }

  /** Register a serial (`is_bind: null`); a known serial is left as it is. */
  async sign(ref: DeviceRef, from: Source, clientId?: string): Promise<Binding> {
    const sn = this.serialOf(ref, from);
    // update: a serial signed twice at once is registered once, never overwritten.
    const made = await this.devices.update(sn, (rec) => {
      if (rec) return { result: { binding: bindingOf(rec), fresh: false } };
      const fresh: DeviceRecord = {
        ...signedDevice(sn, ref.type),
        ...(clientId === undefined ? {} : { signed_by: clientId, signed_ms: this.now() }),
      };
      return { next: fresh, result: { binding: bindingOf(fresh), fresh: true } };
    });
    if (made.fresh && clientId !== undefined) this.bound.touch(clientId);
    return made.binding;
  }

  /**
   * Atomic read-modify-write: of two users binding one free device at once, exactly one gets
   * it and the other sees it bound (403 DEVICE_BOUND from `bound`), also across instances.
   */
  async bind(ref: DeviceRef, from: Source, caller: DeviceOwner): Promise<BindAnswer> {
    return this.devices.update(this.serialOf(ref, from), (rec) => {
      if (!rec) throw notFound();
      const next = bound(rec, { sub: caller.sub, client_id: caller.client_id });
      return { next, result: bindAnswerOf(next) };
    });
  }

  async unbind(ref: DeviceRef, from: Source, caller: DeviceOwner): Promise<BindAnswer> {
    return this.devices.update(this.serialOf(ref, from), (rec) => {
      if (!rec) throw notFound();
      const next = unbound(rec, caller);
      return next === rec ? { result: bindAnswerOf(next) } : { next, result: bindAnswerOf(next) };
    });
  }

  /** One page of the devices in serial order (the control API's listing). */
  async page(q: PageQuery): Promise<Page<DeviceView>> {
    const page = await recordPage(this.devices, (d) => d.sn, q);
    return { ...page, items: page.items.map(viewOf) };
  }

  async get(sn: string): Promise<DeviceView> {
    const rec = await this.devices.get(normalizeSerial(sn));
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
   * nobody could unbind it afterwards. Each release re-checks the owner inside its update: a
   * device rebound meanwhile stays with its new owner.
   */
  async releaseApp(clientId: string): Promise<number> {
    let released = 0;
    for (const { sn } of await this.devices.findBy('owner.client_id', clientId)) {
      released += await this.devices.update(sn, (rec) =>
        rec?.owner?.client_id === clientId
          ? { next: { ...rec, owner: null, released: true }, result: 1 }
          : { result: 0 },
      );
    }
    return released;
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

  /** A full reset emptied the store, its signing keys too: the next signature uses a new one. */
  async resetAll(): Promise<void> {
    this.keys.forget();
  }

  async checkFixtures(dir: string): Promise<void> {
    await this.fixtures(dir);
  }

  /** Load fixtures/devices.json through `put`, so fixtures obey the control API's rules. */
  async seed(dir: string): Promise<void> {
    for (const { sn, note: _note, ...state } of await this.fixtures(dir)) {
      if (await this.devices.get(normalizeSerial(sn))) continue;
      await this.put(sn, state);
    }
  }

  /** The normalized serial of `ref`, its type checked against it. */
  private serialOf(ref: DeviceRef, from: Source): string {
    const sn = normalizeSerial(ref.sn);
    checkType(sn, ref.type, [from, 'type']);
    return sn;
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
