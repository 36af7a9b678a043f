import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { type Config, parseConfig } from '../config.js';
import { parseDuration } from '../core/duration.js';
import { CA_CERT_FILE, caDirOf } from '../tls/caFiles.js';
import { parseArgs } from './parseArgs.js';
import { serveFlags, serveValues } from './serveFlags.js';

export const healthHelp = `Usage: partner-sim health [serve options] [--timeout <duration>] [--json]

Asks the simulator on this machine for GET /__admin/health the way it listens, and exits 0
when it answers 200, 1 otherwise (one line on why). It reads the same configuration as
'partner-sim serve' (the same flags and environment variables), so give it what the server
was given: the port (PORT), --https / --https-only (PARTNER_SIM_HTTPS, PARTNER_SIM_HTTPS_ONLY;
over TLS it trusts the local CA in the data folder or --ca-dir), --admin-token
(PARTNER_SIM_ADMIN_TOKEN, sent although health needs none). A server on 0.0.0.0 or :: is
asked on loopback. If a plain-HTTP check is answered "HTTPS required", it asks again over TLS.
The Docker image's HEALTHCHECK runs it.

Options:
  --timeout <duration>  give up after this long: 2s, 500ms, or ms (default 3s)
  --json                print {url, ok, status} (or {url, ok, error}) as one JSON line
  -h, --help            show this help
  -p, --port <n>, --https, --admin-token <token>, …
                        any 'partner-sim serve' option (see 'partner-sim serve --help')
`;

interface Answer {
  status: number;
  body: string;
}

/** The address to ask: loopback for a wildcard bind. */
function loopbackHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '::1';
  return host.replace(/^\[(.*)\]$/, '$1');
}

async function ask(config: Config, tls: boolean, timeoutMs: number): Promise<Answer> {
  const headers: Record<string, string> = config.adminToken
    ? { authorization: `Bearer ${config.adminToken}` }
    : {};
  // agent: false: a connection of its own, never one kept alive from an earlier check.
  const common = {
    host: loopbackHost(config.host),
    port: config.port,
    path: '/__admin/health',
    headers,
    agent: false,
  };
  const caPath = join(caDirOf(config), CA_CERT_FILE);
  const ca = tls
    ? await readFile(caPath, 'utf8').catch((e: NodeJS.ErrnoException) => {
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

export async function runHealth(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      help: { type: 'boolean', short: 'h' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      ...serveFlags,
    },
  });
  if (values.help) {
    process.stdout.write(healthHelp);
    return 0;
  }
  const { timeout, json, help: _help, ...flags } = values;
  let timeoutMs = 3000;
  try {
    if (timeout !== undefined) timeoutMs = parseDuration(timeout);
    if (timeoutMs < 1) throw new Error('expected at least 1 ms');
  } catch (e) {
    process.stderr.write(`partner-sim health: --timeout ${timeout}: ${(e as Error).message}\n`);
    return 2;
  }
  const config = parseConfig(serveValues(flags), process.env);
  if (config.port === 0) {
    process.stderr.write(
      'partner-sim health: --port 0 names no port to ask; give the port the server listens on\n',
    );
    return 2;
  }
  let tls = config.https && config.httpsOnly;
  const url = () => `${tls ? 'https' : 'http'}://${loopbackHost(config.host)}:${config.port}/__admin/health`;
  try {
    let answer = await ask(config, tls, timeoutMs);
    // The listener's own answer tells its mode when the flags given here did not.
    if (!tls && answer.status === 400 && answer.body.includes('HTTPS_REQUIRED')) {
      tls = true;
      answer = await ask(config, tls, timeoutMs);
    }
    if (json)
      process.stdout.write(
        `${JSON.stringify({ url: url(), ok: answer.status === 200, status: answer.status })}\n`,
      );
    if (answer.status !== 200) {
      process.stderr.write(
        `partner-sim health: ${url()} answered ${answer.status}: ${answer.body.slice(0, 200)}\n`,
      );
      return 1;
    }
    if (!json) process.stdout.write(`partner-sim health: ${url()} answered 200\n`);
    return 0;
  } catch (e) {
    const error = (e as Error).message;
    if (json) process.stdout.write(`${JSON.stringify({ url: url(), ok: false, error })}\n`);
    process.stderr.write(`partner-sim health: ${url()}: ${error}\n`);
    return 1;
  }
}
