import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { createApp } from './app.js';
import { boundSweepers } from './appBounds.js';
import type { Config } from './config.js';
import { HOUSEKEEPING, Housekeeper } from './core/housekeeper.js';
import { createLogger, lineWriter, wantsPretty } from './core/logger.js';
import { Random } from './core/random.js';
import { Instance } from './domain/instance.js';
import { answerClientError } from './http/clientError.js';
import { guardedServer } from './http/connectionGuard.js';
import type { HttpsListener } from './net/httpsListener.js';
import type { Recorder } from './record/recorder.js';
import { type CoreDeps, createServices, type Services, seedAll } from './services.js';
import { adminSpec, apiSpec } from './spec/openapi.js';
import { validatorsFor } from './spec/validators.js';
import { StorageRecovery } from './storage/recovery.js';
import { openStore } from './store/openStore.js';

/** An unfinished blob of a shared store this old was abandoned (no PUT streams for an hour). */
const UNFINISHED_AFTER_MS = 3_600_000;

interface Simulator {
  app: express.Express;
  services: Services;
  config: Config;
  /** Background sweeps of stale state; the running simulator starts its timer. */
  housekeeper: Housekeeper;
  /** The clean-up of what a crash left in storage: `serveSimulator` schedules it, `done()` awaits it. */
  recovery: StorageRecovery;
  /** Stop housekeeping, flush and close the store (after the HTTP server stopped). */
  close(): Promise<void>;
}

/**
 * Everything but listening: open the store, boot the instance record, build the clock, the
 * seeded random source and the services, load fixtures into an empty store, build the app.
 */
async function createSimulator(config: Config, listening: CoreDeps['listening']): Promise<Simulator> {
  const logger = createLogger(config.logLevel, process.stdout, process.env, config.logFormat);
  const requestLine = wantsPretty(process.stdout, process.env, config.logFormat)
    ? lineWriter(process.stdout)
    : undefined;
  const store = await openStore(config, (m) => logger.warn(m));
  const instance = await Instance.boot(
    store,
    new Random(config.seed === undefined ? undefined : `${config.seed}/boot`),
    (m) => logger.warn(m),
  );
  const clock = instance.makeClock();
  instance.follow(clock);
  // The generation makes ids of a restarted instance differ from those it already handed out.
  const random = new Random(config.seed === undefined ? undefined : `${config.seed}#${instance.generation}`);
  const deps = { config, clock, random, store, logger, instance, requestLine, listening };
  const services = createServices(deps);
  if (store.shared) {
    // Other instances may be serving: only what was left unfinished an hour ago is garbage.
    const chunks = await services.storage.blobs.removeUnfinished?.(UNFINISHED_AFTER_MS);
    if (chunks) logger.info({ chunks }, 'removed blob chunks an interrupted instance left behind');
  }
  // What a crash left behind in storage, looked for once listening (serveSimulator): reading
  // every stored record first would make start-up grow with them. Only where this process
  // alone writes: a shared store's leftovers are removed above, and its ghost sessions (cut
  // completions) already count as gone and go with the abandoned-upload sweep.
  const recovery = new StorageRecovery(services.storage, {}, (r) => {
    if (r instanceof Error) logger.warn({ err: r }, 'storage recovery failed');
    else if (r.ghosts + r.parts + r.blobs > 0)
      logger.info(r, 'removed storage left behind by an interrupted run');
  });
  if (!instance.seeded) await seedAll(services, config.fixturesDir);
  const app = createApp({ ...deps, services });
  const housekeeper = new Housekeeper(
    clock,
    [
      // Per-app state is judged on each record's own app clock; `now` only paces the rounds.
      {
        name: 'abandoned uploads',
        sweep: (_now, budget) => services.storage.sweep(budget),
        more: () => services.storage.sweepBehind,
      },
      {
        name: 'expired refresh tokens',
        sweep: (_now, budget) => services.tokens.sweepExpired(budget),
        more: () => services.tokens.sweepBehind,
      },
      {
        name: 'expired transcriptions',
        sweep: (_now, budget) => services.transcriptions.sweepExpired(budget),
        more: () => services.transcriptions.sweepBehind,
      },
      // Every tick, not once a simulated minute: retries are due to the second on app clocks.
      { name: 'webhook deliveries', everyTick: true, sweep: () => services.webhooks.tick() },
      ...boundSweepers(services),
    ],
    { ...HOUSEKEEPING, tickMs: config.housekeepingTickMs },
    (err, sweeper) => logger.warn({ err, sweeper }, 'housekeeping failed'),
  );
  return {
    app,
    services,
    config,
    housekeeper,
    recovery,
    close: async () => {
      await recovery.stop();
      await housekeeper.stop();
      await services.webhooks.stop();
      await store.flush();
      await store.close();
    },
  };
}

export interface RunningSimulator extends Simulator {
  server: Server;
  /** e.g. http://127.0.0.1:4010 */
  url: string;
  /**
   * With --https: the same port's https:// address, the local CA's certificate file (what
   * clients trust) and the proxy address (HTTPS_PROXY), the same host and port as `url`.
   */
  https?: { url: string; caCertPath: string; proxy: string };
  /** With --record: the HAR file of this session and where its traffic goes. */
  recording?: { file: string; upstream: string };
  stop(): Promise<void>;
}

/** Create and listen. Port 0 picks a free port; `url` tells which. */
export async function serveSimulator(config: Config): Promise<RunningSimulator> {
  // The port is reserved before anything touches the data folder (store, LOCK, --https's CA):
  // a start that fails on a busy port leaves no ./data behind. Requests that arrive while the
  // simulator boots wait for it (the socket was accepted; nothing is answered half-built).
  let listener: RequestListener | undefined;
  let booted: (l: RequestListener | undefined) => void = () => {};
  const booting = new Promise<RequestListener | undefined>((resolve) => {
    booted = resolve;
  });
  let logger: Simulator['services']['deps']['logger'] | undefined;
  let warned = 0;
  const server = guardedServer(
    (req, res) => {
      if (listener) return listener(req, res);
      void booting.then((l) => (l ? l(req, res) : res.destroy()));
    },
    config,
    (open) => {
      // Once a minute at most: a flood must not flood the log too.
      if (Date.now() - warned < 60_000) return;
      warned = Date.now();
      logger?.warn(
        { open, max: config.maxConnections },
        'connection cap reached, every connection busy: refusing new ones with 503 (--max-connections)',
      );
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  let sim: Simulator;
  let secure: HttpsListener | undefined;
  let recorder: Recorder | undefined;
  let front: RequestListener;
  try {
    sim = await createSimulator(config, () => {
      const at = server.address();
      return at !== null && typeof at === 'object' ? [at] : [];
    });
    logger = sim.services.deps.logger;
    // --record: partner-API and storage requests go upstream and into a HAR file (loaded only then).
    recorder = config.record
      ? await (await import('./record/recorder.js')).startRecorder(sim.app, config, logger)
      : undefined;
    front = recorder?.listener ?? sim.app;
    // --https: one port for plain HTTP, TLS and the proxy (loaded only then: node-forge and
    // all), on the same guarded server, so its caps and timeouts hold for decrypted
    // connections too. Its "server" is the one already listening; only its listener is new.
    secure = config.https
      ? await (await import('./net/httpsListener.js')).httpsListener(front, config, logger, (l) => {
          listener = l;
          return server;
        })
      : undefined;
  } catch (err) {
    booted(undefined);
    await recorder?.close().catch(() => {});
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    throw err;
  }
  listener ??= front;
  booted(listener);
  server.on('clientError', answerClientError);
  // Warm the validators once listening: the first request then pays nothing extra, and
  // start-up itself stays free of work that can wait.
  // The control API's document waits a little longer: a first partner request sent as soon
  // as the banner shows must not queue behind it.
  setImmediate(() => validatorsFor(apiSpec()));
  setTimeout(() => validatorsFor(adminSpec()), 500).unref();
  // Clients keep idle sockets ~4-5 s (undici, Node's agent) and Node's server also closes them
  // after 5 s: a request sent on a socket the server is closing at that moment fails with
  // "socket hang up". Outliving the clients' idle timeout leaves the close to them.
  server.keepAliveTimeout = 65_000;
  sim.housekeeper.start();
  // Storage recovery is housekeeping too: it begins one tick after listening, with the file
  // store's background load, not in the way of the first requests.
  if (!sim.services.deps.store.shared) sim.recovery.schedule(config.housekeepingTickMs);
  const { port } = server.address() as AddressInfo;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  if (secure) secure.table.port = port;
  let stopping: Promise<void> | undefined;
  return {
    ...sim,
    server,
    url: `http://${authority}`,
    ...(secure
      ? {
          https: {
            url: `https://${authority}`,
            caCertPath: secure.ca.certPath,
            proxy: `http://${authority}`,
          },
        }
      : {}),
    ...(recorder ? { recording: { file: recorder.file.path, upstream: recorder.upstream } } : {}),
    stop() {
      stopping ??= (async () => {
        // Hung and delayed fault responses would otherwise hold the close for 2 s.
        sim.services.faults.releaseHeld();
        await new Promise<void>((resolve) => {
          // A response still ending when stop() came (a download's file stream closes a tick
          // after its last byte went out) leaves a keep-alive socket that turns idle only
          // then: close idle ones as they appear, not all at the hard cap below.
          const idle = setInterval(() => server.closeIdleConnections(), 20);
          // Keep-alive sockets and hung responses must not hold shutdown hostage.
          const cap = setTimeout(() => server.closeAllConnections(), 2000);
          idle.unref();
          cap.unref();
          server.close(() => {
            clearInterval(idle);
            clearTimeout(cap);
            resolve();
          });
          server.closeIdleConnections();
        });
        await recorder?.close();
        await sim.close();
      })();
      return stopping;
    },
  };
}
