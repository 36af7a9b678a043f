import { createServer, type RequestListener, type Server } from 'node:http';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { caDirOf } from '../tls/caFiles.js';
import { type LocalCa, loadOrCreateCa } from '../tls/caStore.js';
import { issueLeaf } from '../tls/certificates.js';
import { InterceptTable, interceptOptionsOf } from './interceptTable.js';
import { passThrough } from './passThrough.js';
import { acceptTlsAndProxy, routeRequests } from './secureListener.js';

export interface HttpsListener {
  /** Not yet listening; the caller listens on it as on a plain server. */
  server: Server;
  ca: LocalCa;
  table: InterceptTable;
}

/**
 * `serve --https`: the local CA (created on first use), a leaf for every name the simulator
 * answers to, issued anew at each start (its key lives in memory only), and the server that
 * speaks plain HTTP, TLS and proxy on one port. Loaded only with --https, so a plain start
 * reads none of this (nor node-forge).
 */
export async function httpsListener(
  app: RequestListener,
  config: Config,
  logger: Logger,
  /** How the HTTP server is made (the simulator's guarded server: caps and timeouts). */
  makeServer: (listener: RequestListener) => Server = (listener) => createServer(listener),
): Promise<HttpsListener> {
  const ca = await loadOrCreateCa(caDirOf(config));
  if (ca.created) logger.info({ ca: ca.certPath }, 'created the local certificate authority');
  const table = new InterceptTable(interceptOptionsOf(config));
  const leaf = issueLeaf(ca, table.certNames);
  const opts = {
    table,
    leaf,
    httpsOnly: config.httpsOnly,
    passThrough: config.proxyPassthrough
      ? passThrough(
          {
            passed: (host) =>
              logger.info(
                { host },
                'proxy lets a host it does not serve through to the real one (--proxy-passthrough)',
              ),
            refused: (host, why) =>
              logger.warn(
                { host, why },
                'proxy refused to let a client through to this address (--proxy-passthrough)',
              ),
          },
          () => table.port,
        )
      : undefined,
    log: (msg: string, detail: Record<string, unknown>) => logger.debug(detail, msg),
  };
  const server = makeServer(routeRequests(app, opts));
  acceptTlsAndProxy(server, opts);
  return { server, ca, table };
}
