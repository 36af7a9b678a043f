import { resolve } from 'node:path';
import { fromRoot } from '../core/root.js';
import { isPostgresUrl, redactUrl } from '../store/postgres/url.js';
import { hostList, type LogLevel, option } from './kit.js';

/** Where and how the simulator listens, keeps its state, logs and guards its control API. */
export const listeningOptions = [
  option({
    flag: 'port',
    key: 'port',
    kind: 'int',
    env: 'PORT',
    help: 'port to listen on; 0 picks a free one',
    default: 4010,
  }),
  option({
    flag: 'host',
    key: 'host',
    kind: 'string',
    default: '127.0.0.1',
    env: 'HOST',
    help: 'interface to bind (use 0.0.0.0 in a container)',
  }),
  option({
    flag: 'data-dir',
    key: 'dataDir',
    kind: 'string',
    default: resolve('data'),
    env: 'PARTNER_SIM_DATA_DIR',
    help: 'folder for state and uploaded bytes',
  }),
  option({
    flag: 'in-memory',
    key: 'inMemory',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_IN_MEMORY',
    help: 'keep everything in memory (nothing written to disk)',
  }),
  option({
    flag: 'store',
    key: 'store',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_STORE',
    help: 'a postgres:// URL: all state (and uploaded bytes) in that database, shared by every instance using it (default: files under --data-dir)',
    show: redactUrl,
    parse: (raw) => {
      if (!isPostgresUrl(raw)) throw new Error('expected a postgres:// or postgresql:// URL');
      try {
        new URL(raw);
      } catch {
        throw new Error('not a valid URL');
      }
      return raw;
    },
  }),
  option({
    flag: 'seed',
    key: 'seed',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_SEED',
    help: 'seed of the random source (ids, secrets, faults): reproducible but guessable; default: CSPRNG',
  }),
  option({
    flag: 'fixtures',
    key: 'fixturesDir',
    kind: 'string',
    default: fromRoot('fixtures'),
    env: 'PARTNER_SIM_FIXTURES',
    help: 'fixtures folder loaded into an empty store',
  }),
  option({
    flag: 'public-url',
    key: 'publicUrl',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_PUBLIC_URL',
    help: 'base URL written into presigned/download URLs (default: from the request Host)',
  }),
  option({
    flag: 'log-level',
    key: 'logLevel',
    kind: 'string',
    default: 'info' as LogLevel,
    env: 'LOG_LEVEL',
    help: 'log level',
    choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
  }),
  option({
    flag: 'log-format',
    key: 'logFormat',
    kind: 'string',
    default: 'auto' as 'auto' | 'pretty' | 'json',
    env: 'PARTNER_SIM_LOG_FORMAT',
    help: 'pretty: readable lines; json: one JSON object a line; auto: pretty when stdout is a terminal',
    choices: ['auto', 'pretty', 'json'],
  }),
  option({
    flag: 'access-log',
    key: 'accessLog',
    kind: 'bool',
    // On: a CI log is read for what failed, and a request's line is where that is.
    default: true,
    env: 'PARTNER_SIM_ACCESS_LOG',
    help: 'one line per request on every surface, level by status: 2xx/3xx info, 4xx warn, 5xx error (--no-access-log: at debug, and a summary a minute at info)',
  }),
  option({
    flag: 'admin-token',
    key: 'adminToken',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_ADMIN_TOKEN',
    help: 'require "Authorization: Bearer <token>" on /__admin',
  }),
  option({
    flag: 'allowed-hosts',
    key: 'allowedHosts',
    kind: 'string',
    default: [] as string[],
    env: 'PARTNER_SIM_ALLOWED_HOSTS',
    help: "comma list of extra host names /__admin answers to (loopback and the --public-url host always work); '*' allows any",
    parse: (raw) => hostList(raw, true),
  }),
  option({
    flag: 'https',
    key: 'https',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_HTTPS',
    help: 'the port also answers HTTPS (a leaf of the local CA, see `partner-sim ca`) and as an HTTP proxy serving the live hosts (docs/any-client.md)',
  }),
  option({
    flag: 'https-only',
    key: 'httpsOnly',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_HTTPS_ONLY',
    help: 'with --https: answer direct plain-HTTP requests with 400 (proxy requests still work)',
  }),
  option({
    flag: 'ca-dir',
    key: 'caDir',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_CA_DIR',
    help: 'folder of the local certificate authority, created on first use, key owner-only (default: <data-dir>/ca)',
  }),
  option({
    flag: 'tls-hosts',
    key: 'tlsHosts',
    kind: 'string',
    default: [] as string[],
    env: 'PARTNER_SIM_TLS_HOSTS',
    help: 'comma list of more names or addresses the certificate covers and the proxy serves (e.g. a LAN address for a phone)',
    parse: (raw) => hostList(raw, false),
  }),
  option({
    flag: 'proxy-passthrough',
    key: 'proxyPassthrough',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_PROXY_PASSTHROUGH',
    help: 'with --https: hosts the proxy does not serve are tunnelled to the real host unchanged (CONNECT piped, plain requests forwarded), each logged once, instead of refused with 403 (never to a link-local or metadata address, nor loopback but this port); off by default: nothing leaves this machine',
  }),
  option({
    flag: 'storage-host',
    key: 'storageHost',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_STORAGE_HOST',
    help: "S3-shaped upload and download URLs, https://<this host>/<key>?X-Amz-… (e.g. partner-sim.s3.us-east-1.amazonaws.com), served through --https and its proxy; default: URLs on the simulator's own address",
    parse: (raw) => {
      const [host] = hostList(raw, false);
      if (host === undefined || raw.includes(',') || /^[0-9.]+$|:/.test(host))
        throw new Error('expected one DNS name, such as partner-sim.s3.us-east-1.amazonaws.com');
      return host;
    },
  }),
] as const;
