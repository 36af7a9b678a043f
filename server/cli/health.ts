import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { type Config, parseConfig } from '../config.js';
import { parseDuration } from '../core/duration.js';
import { CA_CERT_FILE, caDirOf } from '../tls/caFiles.js';
import { parseArgs } from './parseArgs.js';
import { serveFlags, serveValues } from './serveFlags.js';
import { isLive, jsonFlag, targetFlag } from './sharedFlags.js';
import { openTarget, UsageError } from './target.js';

export const healthHelp = `Usage: partner-sim health [serve options | --target <URL|sim>] [--timeout <duration>] [--json]

Asks the simulator on this machine for GET /__admin/health the way it listens, and exits 0
when it answers 200, 1 otherwise (one line on why). It reads the same configuration as
'partner-sim serve' (the same flags and environment variables), so give it what the server
was given: the port (PORT), --https / --https-only (PARTNER_SIM_HTTPS, PARTNER_SIM_HTTPS_ONLY;
over TLS it trusts the local CA in the data folder or --ca-dir), --admin-token
(PARTNER_SIM_ADMIN_TOKEN, sent although health needs none). A server on 0.0.0.0 or :: is
asked on loopback. If a plain-HTTP check is answered "HTTPS required", it asks again over TLS.
The Docker image's HEALTHCHECK runs it. With --target it asks that simulator instead.

Options:
  --target <URL|sim>    a simulator elsewhere: URL, its GET /__admin/health (an https URL
                        trusts the local CA of --ca-dir or the data folder when there is
                        one); sim, one started in this process (the install can serve).
                        live has no health endpoint: refused, saying so
  --base-url <url>      the same as --target <url>
  --admin-token <token> the server's --admin-token, sent although health needs none
                        [env PARTNER_SIM_ADMIN_TOKEN]
  --timeout <duration>  give up after this long: 2s, 500ms, or ms (default 3s)
  --json                print {url, ok, status} (or {url, ok, error}) as one JSON line
  -h, --help            show this help
  -p, --port <n>, --https, --ca-dir <dir>, …
                        any 'partner-sim serve' option (see 'partner-sim serve --help')
`;

interface Answer {
  status: number;
  body: string;
}

/** The listener the serve flags describe, asked on loopback. */
const localUrl = (config: Config, tls: boolean): URL => {
  const host = loopbackHost(config.host);
  return new URL(
    `${tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${config.port}/__admin/health`,
  );
};

/** The address to ask: loopback for a wildcard bind. */
function loopbackHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host.replace(/^\[(.*)\]$/, '$1');
}

async function ask(config: Config, url: URL, timeoutMs: number): Promise<Answer> {
  const tls = url.protocol === 'https:';
  const headers: Record<string, string> = config.adminToken
    ? { authorization: `Bearer ${config.adminToken}` }
    : {};
  // agent: false: a connection of its own, never one kept alive from an earlier check.
  const common = {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port,
    path: url.pathname,
    headers,
    agent: false,
  };
  const caPath = join(caDirOf(config), CA_CERT_FILE);
  // The local listener's CA must be there; another simulator's only when it is (else the
  // system's roots, as for any https URL).
  const ca = tls
    ? await readFile(caPath, 'utf8').catch((e: NodeJS.ErrnoException) => {
        if (url.host !== localUrl(config, true).host) return undefined;
        throw new Error(
          `cannot read the local CA ${caPath} (${e.code}): give the server's --data-dir or --ca-dir`,
        );
      })
    : undefined;
  return new Promise((resolve, reject) => {
    const onResponse = (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (body.length < 4096) body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    };
    // The leaf covers localhost and the loopback addresses; SNI needs a name, not an address.
    const req = tls
      ? httpsRequest({ ...common, ca, servername: 'localhost' }, onResponse)
      : httpRequest(common, onResponse);
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end();
  });
}

/** What to ask: the --target's control API, or the local listener the serve flags describe. */
async function whereToAsk(
  target: string | undefined,
  config: Config,
): Promise<{ url: URL; stop: () => Promise<void> }> {
  if (target === undefined) {
    if (config.port === 0)
      throw new UsageError('--port 0 names no port to ask; give the port the server listens on');
    return { url: localUrl(config, config.https && config.httpsOnly), stop: async () => {} };
  }
  if (isLive(target))
    throw new UsageError(
      `--target ${target}: the live service has no health endpoint; give a simulator's URL or sim`,
    );
  const t = await openTarget(target, process.env);
  return { url: new URL('/__admin/health', t.api), stop: () => t.stop() };
}

export async function runHealth(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean', short: 'h' },
      timeout: { type: 'string' },
      ...jsonFlag,
      ...targetFlag,
      ...serveFlags,
    },
  });
  if (values.help) {
    process.stdout.write(healthHelp);
    return 0;
  }
  const { timeout, json, target, help: _help, ...flags } = values;
  let timeoutMs = 3000;
  try {
    if (timeout !== undefined) timeoutMs = parseDuration(timeout);
    if (timeoutMs < 1) throw new Error('expected at least 1 ms');
  } catch (e) {
    process.stderr.write(`partner-sim health: --timeout ${timeout}: ${(e as Error).message}\n`);
    return 2;
  }
  const config = parseConfig(serveValues(flags), process.env);
  let where: Awaited<ReturnType<typeof whereToAsk>>;
  try {
    where = await whereToAsk(target, config);
  } catch (e) {
    process.stderr.write(`partner-sim health: ${(e as Error).message}\n`);
    return e instanceof UsageError ? 2 : 1;
  }
  let url = where.url;
  try {
    let answer = await ask(config, url, timeoutMs);
    // The listener's own answer tells its mode when the flags given here did not.
    if (url.protocol === 'http:' && answer.status === 400 && answer.body.includes('HTTPS_REQUIRED')) {
      url = new URL(url);
      url.protocol = 'https:';
      answer = await ask(config, url, timeoutMs);
    }
    if (json)
      process.stdout.write(`${JSON.stringify({ url, ok: answer.status === 200, status: answer.status })}\n`);
    if (answer.status !== 200) {
      process.stderr.write(
        `partner-sim health: ${url} answered ${answer.status}: ${answer.body.slice(0, 200)}\n`,
      );
      return 1;
    }
    if (!json) process.stdout.write(`partner-sim health: ${url} answered 200\n`);
    return 0;
  } catch (e) {
    const error = (e as Error).message;
    if (json) process.stdout.write(`${JSON.stringify({ url, ok: false, error })}\n`);
    process.stderr.write(`partner-sim health: ${url}: ${error}\n`);
    return 1;
  } finally {
    await where.stop();
  }
}
