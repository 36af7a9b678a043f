import type { Handlers } from '../http/types.js';
import { InterceptTable, interceptOptionsOf } from '../net/interceptTable.js';
import { CA_PATH, caCertificate, caDirOf } from '../tls/caFiles.js';

/**
 * Control API: what the HTTPS listener and its proxy serve, read from the same settings and
 * the same table the listener uses, so a client told this (the contract suite) cannot disagree
 * with the proxy about which hosts are the simulator's.
 */
export const proxyAdminHandlers = {
  getProxy: async ({ services }) => {
    const { config } = services.deps;
    const ca = config.https ? await caCertificate(caDirOf(config)) : undefined;
    return {
      status: 200,
      body: {
        https: config.https,
        intercepted_hosts: config.https
          ? new InterceptTable(interceptOptionsOf(config)).interceptedHosts
          : [],
        storage_host: config.storageHost ?? null,
        ca_certificate: ca?.pem ?? null,
        ca_page: ca ? CA_PATH : null,
        passthrough: config.https && config.proxyPassthrough,
      },
    };
  },
} satisfies Handlers;
