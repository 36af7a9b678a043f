import { parseConfig } from '../config.js';
import { CA_CERT_FILE, CA_PATH, caDirOf } from '../tls/caFiles.js';
import { loadOrCreateCa } from '../tls/caStore.js';
import { parseArgs } from './parseArgs.js';

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

export const caHelp = `Usage: partner-sim ca [--data-dir <dir>] [--ca-dir <dir>] [--port <n>] [--pem]

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
  --pem              print only the certificate (PEM), e.g. to pipe into a trust store
  -h, --help         show this help

${trustHelp(`<ca folder>/${CA_CERT_FILE}`)}`;

export async function runCa(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      'ca-dir': { type: 'string' },
      port: { type: 'string' },
      pem: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(caHelp);
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
  process.stdout.write(
    `${ca.created ? 'Created the' : 'The'} local certificate authority of partner-sim:\n` +
      `  certificate: ${ca.certPath}\n  key:         ${ca.keyPath} (owner only; never share it)\n` +
      `  page:        ${caPageUrl('127.0.0.1', config.port)} while 'partner-sim serve --https' runs\n` +
      `               (Android emulator: ${caPageUrl('10.0.2.2', config.port)}; a phone: your LAN address)\n\n` +
      trustHelp(ca.certPath),
  );
  return 0;
}
