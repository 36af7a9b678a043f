import type { Logger } from 'pino';
import type { Config } from './config.js';
import { FaultService } from './control/faults.js';
import { RateLimiter } from './control/rateLimiter.js';
import type { SimClock } from './core/clock.js';
import { SimError } from './core/errors.js';
import type { Lifecycle } from './core/lifecycle.js';
import type { LineWriter } from './core/logger.js';
import type { Random } from './core/random.js';
import { AppRegistry, type NewApp } from './domain/apps.js';
import { Clocks } from './domain/clocks.js';
import { DeviceEvents } from './domain/deviceEvents.js';
import { DeviceRegistry } from './domain/devices.js';
import type { Instance } from './domain/instance.js';
import { PhoneRecordings } from './domain/phoneRecordings.js';
import { PhoneService } from './domain/phones.js';
import { RecorderRegistry } from './domain/recorders.js';
import { SdkKeys } from './domain/sdkKeys.js';
import { TokenService } from './domain/tokens.js';
import { readFixture } from './spec/fixtures.js';
import { apiSpec } from './spec/openapi.js';
import { StorageService } from './storage/storageService.js';
import { openBlobStore } from './store/openStore.js';
import type { JournalLog, Store } from './store/store.js';
import { TranscriptionService } from './transcription/service.js';
import { TaskEvents } from './transcription/taskEvents.js';
import { TranscriptLibrary } from './transcription/transcripts.js';
import { type ListeningAddress, WebhookEgress } from './webhooks/egress.js';
import { Webhooks } from './webhooks/webhooks.js';

/** What every service may be built from: injected, never global. */
export interface CoreDeps {
  config: Config;
  clock: SimClock;
  random: Random;
  store: Store;
  logger: Logger;
  instance: Instance;
  /**
   * Set when logs are readable (a terminal, or --log-format pretty): writes the one line per
   * partner API and storage request (core/logger.ts `lineWriter`).
   */
  requestLine?: LineWriter | undefined;
  /** Where the simulator listens (none until it does): webhooks never call these. */
  listening?: (() => ListeningAddress[]) | undefined;
}

export interface Services {
  deps: CoreDeps;
  apps: AppRegistry;
  /** The instance clock and each app's own clock on top of it. */
  clocks: Clocks;
  tokens: TokenService;
  devices: DeviceRegistry;
  /** The device side of recorders, and the phones of the device protocol. */
  recorders: RecorderRegistry;
  phones: PhoneService;
  phoneRecordings: PhoneRecordings;
  /** The `device.*` webhook events of recorders and phones. */
  deviceEvents: DeviceEvents;
  /** Fake S3: upload sessions, parts, completed files; also the FileSource of DownloadUrls. */
  storage: StorageService;
  transcriptions: TranscriptionService;
  /** Transcripts attached to audio by MD5 (control API, fixture sidecars). */
  transcripts: TranscriptLibrary;
  /** Fault rules (stored), request journal and live limits (in memory): the control plane. */
  faults: FaultService;
  journal: JournalLog;
  rateLimits: RateLimiter;
  /** Webhook endpoints, events (`emit`) and deliveries on each app's clock. */
  webhooks: Webhooks;
  /** Every stateful service, in the order resets and seeding run. */
  lifecycle: Lifecycle[];
}

export function createServices(deps: CoreDeps): Services {
  const { config, clock, random, store, instance } = deps;
  const apps = new AppRegistry(store, random.fork('apps'), config.regions);
  const clocks = new Clocks(clock, instance, store);
  const clockOf = clocks.of.bind(clocks);
  const tokens = new TokenService(store, apps, clockOf, random.fork('tokens'), instance.secret('jwt'), {
    partnerTtlS: config.partnerTokenTtlS,
    userTtlS: config.userTokenTtlS,
    refreshTtlS: config.refreshTokenTtlS,
    keepPerApp: config.keepPerApp,
    claimsClock: config.tokenClaimsClock,
  });
  const appsLifecycle: Lifecycle = {
    async checkFixtures(dir) {
      await readFixture(dir, 'apps.json');
    },
    async seed(dir) {
      const list = (await readFixture<(NewApp & { note?: string })[]>(dir, 'apps.json')) ?? [];
      for (const { note: _note, ...a } of list) {
        if (apps.get(a.client_id ?? '')) continue;
        // Instances starting together on one shared store may seed at once: the app made by
        // another is as good as ours.
        await apps.create(a).catch((e: unknown) => {
          if (!(e instanceof SimError && e.code === 'APP_EXISTS')) throw e;
        });
      }
    },
  };
  const devices = new DeviceRegistry(store, random.fork('devices'), new SdkKeys(store), {
    keepPerApp: config.keepPerApp,
    now: () => clock.now(),
  });
  const recorders = new RecorderRegistry(store, random.fork('recorders'), clock);
  const storage = new StorageService(
    store,
    openBlobStore(config, store),
    apps,
    clockOf,
    random.fork('storage'),
    instance.secret('presign'),
    config,
  );
  const transcripts = new TranscriptLibrary(store);
  const webhooks = new Webhooks(
    {
      store,
      random: random.fork('webhooks'),
      clockOf,
      logger: deps.logger,
      // Fault rules are created below; only consulted when a delivery is made.
      faultFor: (clientId, event) => faults.webhookFaultFor(clientId, event),
    },
    {
      timeoutMs: config.webhookTimeoutMs,
      keepPerApp: config.keepPerApp,
      egress: new WebhookEgress(config.webhookEgress, () => deps.listening?.() ?? []),
    },
  );
  const taskEvents: TaskEvents = new TaskEvents(
    store,
    {
      emit: (clientId, event, data, eventId) => webhooks.emit(clientId, event, data, eventId),
      wantsAny: (clientId, prefix) => webhooks.endpoints.wantsAny(clientId, prefix),
    },
    (id) => transcriptions.settled(id),
  );
  webhooks.addSource((budget) => taskEvents.sweep(budget));
  const webhooksLifecycle: Lifecycle = {
    resetApp: async (clientId) => {
      await taskEvents.resetApp(clientId);
      await webhooks.resetApp(clientId);
    },
  };
  const transcriptions: TranscriptionService = new TranscriptionService(
    store,
    config,
    clock,
    random,
    deps.logger,
    {
      appOf: (clientId) => apps.get(clientId),
      events: taskEvents,
      files: storage,
      transcriptFor: (md5) => transcripts.forMd5(md5),
      // Fault rules decide outcomes at submission time (created below; only called per request).
      outcomeFor: (clientId) => faults.outcomeFor(clientId),
      clockOf,
    },
  );
  const faults = new FaultService(
    store,
    clock,
    random.fork('faults'),
    () => new Set(apiSpec().operations.keys()),
  );
  const journal = store.journal(config.journalSize, {
    entries: config.journalUnverified,
    bytes: config.journalUnverifiedBytes,
  });
  const journalLifecycle: Lifecycle = {
    resetAll: async () => void (await journal.clear()),
    resetApp: async (clientId) => void (await journal.clear(clientId)),
  };
  const rateLimits = new RateLimiter(store, clockOf);
  const deviceRandom = random.fork('deviceEvents');
  const deviceEvents: DeviceEvents = new DeviceEvents(
    { emit: (clientId, event, data, eventId) => webhooks.emit(clientId, event, data, eventId) },
    {
      // Phones are created below; only consulted when an event is emitted.
      phoneApp: (id) => phones.appOf(id),
      owner: async (sn) => (await devices.get(sn).catch(() => undefined))?.owner,
    },
    (e) => deps.logger.warn({ err: e }, 'device event not emitted'),
    () => deviceRandom.hex(8),
  );
  const phones = new PhoneService(
    store,
    random.fork('phones'),
    clockOf,
    tokens,
    recorders,
    devices,
    deviceEvents,
    config.phonesPerApp,
  );
  const phoneRecordings = new PhoneRecordings(phones, recorders, deviceEvents);
  return {
    deps,
    apps,
    clocks,
    tokens,
    devices,
    recorders,
    phones,
    phoneRecordings,
    deviceEvents,
    transcriptions,
    transcripts,
    storage,
    faults,
    journal,
    rateLimits,
    webhooks,
    lifecycle: [
      appsLifecycle,
      clocks,
      tokens,
      devices,
      phones,
      storage,
      transcripts,
      transcriptions,
      faults,
      journalLifecycle,
      rateLimits,
      webhooksLifecycle,
    ],
  };
}

/**
 * Back to the fixtures: store emptied, every service reset, fixtures loaded, clock offset 0.
 * The fixtures are checked first: a broken one is a 422 and the state stays as it was.
 */
export async function resetAll(services: Services): Promise<void> {
  const { store, instance, config } = services.deps;
  await checkFixtures(services, config.fixturesDir);
  await store.clear();
  for (const s of services.lifecycle) await s.resetAll?.();
  await instance.update({ seeded: false });
  await seedAll(services, config.fixturesDir);
}

/** Every fixture file of `dir` loadable? Throws the first 422 (file and field) otherwise. */
async function checkFixtures(services: Services, dir: string): Promise<void> {
  for (const s of services.lifecycle) await s.checkFixtures?.(dir);
}

/** Fixtures into an empty store; all are checked before the first record is written. */
export async function seedAll(services: Services, dir: string): Promise<void> {
  await checkFixtures(services, dir);
  for (const s of services.lifecycle) await s.seed?.(dir);
  await services.deps.instance.update({ seeded: true });
}

/**
 * DELETE /__admin/apps/{client_id}: the app first (its credentials stop working at once), then
 * everything it owned, then the devices its users held are released.
 */
export async function deleteApp(services: Services, clientId: string): Promise<void> {
  if (!(await services.apps.remove(clientId)))
    throw SimError.notFound('APP_NOT_FOUND', `No app with client_id ${clientId}`);
  await resetApp(services, clientId);
  await services.webhooks.removeApp(clientId);
  await services.devices.releaseApp(clientId);
}

/** One app's uploads, tasks, faults, journal entries and clock removed; the app kept. */
export async function resetApp(services: Services, clientId: string): Promise<void> {
  for (const s of services.lifecycle) await s.resetApp?.(clientId);
}
