import { parseConfig } from '../config.js';
import { CA_CERT_FILE, CA_PATH, caDirOf } from '../tls/caFiles.js';
import { loadOrCreateCa } from '../tls/caStore.js';
import { parseArgs } from './parseArgs.js';
import { isLive, jsonFlag, targetFlag } from './sharedFlags.js';

/**
 * `partner-sim ca`: where the local certificate authority of `serve --https` is (created here
 * if it does not exist yet) and how each kind of client is told to trust it. Only the
 * certificate is ever shown or copied; the key stays in its folder.
 */
/** The page (and its .pem/.crt downloads) a device opens to get the certificate, over plain HTTP. */
const caPageUrl = (host: string, port: number): string => `http://${host}:${port}${CA_PATH}`;

export function trustHelp(cert: string): string {
  return `How to trust it (the certificate only; never copy the .key file):
  Node        NODE_EXTRA_CA_CERTS=${cert} node app.js
  Python      SSL_CERT_FILE=${cert} (urllib, http.client, httpx)
              REQUESTS_CA_BUNDLE=${cert} (requests)
  curl        curl --cacert ${cert} …   (or CURL_CA_BUNDLE=${cert})
  Go          SSL_CERT_FILE=${cert} go run .   (Linux; on macOS add it to the keychain)
  Java        keytool -importcert -noprompt -alias partner-sim -file ${cert} \\
                -keystore partner-sim.jks -storepass changeit
              java -Djavax.net.ssl.trustStore=partner-sim.jks -Djavax.net.ssl.trustStorePassword=changeit …
  iOS sim     xcrun simctl keychain booted add-root-cert ${cert}
  Android     adb push ${cert} /sdcard/Download/partner-sim-ca.pem, then Settings > Security >
  emulator    Encryption & credentials > Install a certificate > CA certificate; the app's
              network_security_config.xml must trust user certificates in debug builds
              (<debug-overrides><trust-anchors><certificates src="user"/>…). The emulator
              reaches this machine as 10.0.2.2 (covered by the certificate).

Then either point the client at https://127.0.0.1:4010 (serve --https), or leave its URLs
alone and set the proxy: HTTPS_PROXY=http://127.0.0.1:4010 (the live hosts and the
--storage-host are served by the simulator, every other host is refused).
Step by step for each language: docs/any-client.md.
`;
}

export const caHelp = `Usage: partner-sim ca [--data-dir <dir>] [--ca-dir <dir>] [--port <n>] [--target <URL>] [--pem] [--json]

Prints the path of the local certificate authority that 'serve --https' uses, creating it
first if it does not exist (key readable by you only), the page a device downloads it from
while the simulator runs (http://127.0.0.1:<port>/ca; the Android emulator: 10.0.2.2), and
how to trust it.

Options:
  --data-dir <dir>   data folder of the simulator; the CA is <dir>/ca (default ./data)
                     [env PARTNER_SIM_DATA_DIR]
  --ca-dir <dir>     the CA's own folder instead [env PARTNER_SIM_CA_DIR]
  -p, --port <n>     the port 'serve --https' listens on, for the page's URL (default 4010)
                     [env PORT]
  --target <URL>     the CA of a running simulator elsewhere (serve --https), downloaded
                     from its /ca page instead of read here; sim and live have none
  --base-url <url>   the same as --target <url>
  --pem              print only the certificate (PEM), e.g. to pipe into a trust store
  --json             print {certificate, key, created, page} (with --target: {page, pem})
  -h, --help         show this help

${trustHelp(`<ca folder>/${CA_CERT_FILE}`)}`;

/** The certificate a running simulator hands out on its /ca page (plain HTTP, no token). */
async function remoteCa(target: string): Promise<{ page: string; pem: string }> {
  if (target === 'sim' || isLive(target))
    throw Object.assign(
      new Error(
        `--target ${target}: ${target === 'sim' ? 'an in-process simulator has no --https' : 'the live service uses public certificates'}, so no CA to trust; give the URL of a simulator started with --https`,
      ),
      { code: 'ERR_PARSE_ARGS_USAGE' },
    );
  let page: URL;
  try {
    page = new URL(CA_PATH, target);
    if (page.protocol !== 'http:' && page.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw Object.assign(new Error(`--target must be an http or https URL here (got '${target}')`), {
      code: 'ERR_PARSE_ARGS_USAGE',
    });
  }
  const res = await fetch(new URL(`${CA_PATH}/${CA_CERT_FILE}`, page));
  const body = await res.text();
  if (res.status !== 200)
    throw new Error(`${res.url} answered ${res.status}: ${body.slice(0, 200)} (is it serving with --https?)`);
  return { page: page.href, pem: body };
}

export async function runCa(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      'ca-dir': { type: 'string' },
      port: { type: 'string' },
      pem: { type: 'boolean' },
      ...jsonFlag,
      ...targetFlag,
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(caHelp);
    return 0;
  }
  if (values.target !== undefined) {
    const ca = await remoteCa(values.target);
    if (values.pem) process.stdout.write(ca.pem);
    else if (values.json) process.stdout.write(`${JSON.stringify(ca)}\n`);
    else
      process.stdout.write(
        `The certificate authority of the simulator at ${values.target}:\n  page: ${ca.page}\n` +
          `  save it: partner-sim ca --target ${values.target} --pem > ${CA_CERT_FILE}\n\n` +
          trustHelp(CA_CERT_FILE),
      );
    return 0;
  }
  const config = parseConfig(
    { 'data-dir': values['data-dir'], 'ca-dir': values['ca-dir'], port: values.port },
    process.env,
  );
  const ca = await loadOrCreateCa(caDirOf(config));
  if (values.pem) {
    process.stdout.write(ca.certPem);
    return 0;
  }
  const page = caPageUrl('127.0.0.1', config.port);
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ certificate: ca.certPath, key: ca.keyPath, created: ca.created, page })}\n`,
    );
    return 0;
  }
  process.stdout.write(
    `${ca.created ? 'Created the' : 'The'} local certificate authority of partner-sim:\n` +
      `  certificate: ${ca.certPath}\n  key:         ${ca.keyPath} (owner only; never share it)\n` +
      `  page:        ${page} while 'partner-sim serve --https' runs\n` +
      `               (Android emulator: ${caPageUrl('10.0.2.2', config.port)}; a phone: your LAN address)\n\n` +
      trustHelp(ca.certPath),
  );
  return 0;
}
