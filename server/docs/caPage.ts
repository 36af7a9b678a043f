import { type Request, type RequestHandler, Router } from 'express';
import type { Config } from '../config.js';
import { SimError } from '../core/errors.js';
import { CA_FILES, CA_PATH, type CaCertificate, caCertificate, caDirOf } from '../tls/caFiles.js';

/**
 * `GET /ca`: the local CA's certificate one tap away, as mitmproxy (mitm.it) and HTTP Toolkit
 * do it: a short page with the steps per platform, and the certificate as `.pem` and as DER
 * `.crt` (what Android's installer and Windows open). Plain HTTP works (the device does not
 * trust the CA yet), `--https-only` included. Only the certificate: the key is never read.
 */
const html = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(ca: CaCertificate, port: number): string {
  const pem = `${CA_PATH}/${CA_FILES.pem}`;
  const crt = `${CA_PATH}/${CA_FILES.crt}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>partner-sim CA certificate</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:1rem auto;padding:0 1rem}
code,pre{background:#f3f3f3;padding:.1rem .3rem;overflow-wrap:anywhere}pre{padding:.5rem;overflow-x:auto}
a.button{display:inline-block;margin:.3rem .5rem .3rem 0;padding:.6rem 1rem;background:#1f6feb;color:#fff;border-radius:.4rem;text-decoration:none}</style>
</head>
<body>
<h1>partner-sim CA certificate</h1>
<p>Trust this certificate on a device or emulator so that it accepts the simulator's HTTPS
answers for the live hosts and the storage host. It is your own local CA: trust it only on
test devices. Its key never leaves this machine.</p>
<p><a class="button" href="${crt}" download>${CA_FILES.crt}</a> (DER: Android, iOS, Windows)
<a class="button" href="${pem}" download>${CA_FILES.pem}</a> (PEM: Node, Python, curl, Go)</p>
<p>${html(ca.subject)}, valid until ${html(ca.validTo)}<br>
SHA-256 <code>${ca.fingerprint256}</code></p>
<h2>Android emulator</h2>
<ol>
<li>In the emulator's browser open <code>http://10.0.2.2:${port}${CA_PATH}</code> and download <code>${CA_FILES.crt}</code>.</li>
<li>Settings &gt; Security &gt; Encryption &amp; credentials &gt; Install a certificate &gt; CA certificate, and pick it.</li>
<li>Debug builds trust user certificates only when <code>network_security_config.xml</code> says so:
<code>&lt;debug-overrides&gt;&lt;trust-anchors&gt;&lt;certificates src="user"/&gt;</code>.</li>
<li>Proxy: <code>adb shell settings put global http_proxy 10.0.2.2:${port}</code>
(undo: <code>adb shell settings put global http_proxy :0</code>). Start the simulator with
<code>--proxy-passthrough</code> to let the emulator's other traffic through.</li>
</ol>
<h2>iOS simulator</h2>
<ol>
<li><code>xcrun simctl keychain booted add-root-cert ${CA_FILES.pem}</code> on the Mac, or</li>
<li>in the simulator's Safari open <code>http://127.0.0.1:${port}${CA_PATH}</code>, download <code>${CA_FILES.crt}</code>,
install it under Settings &gt; General &gt; VPN &amp; Device Management, then turn it on under
Settings &gt; General &gt; About &gt; Certificate Trust Settings.</li>
</ol>
<h2>Desktop</h2>
<pre>curl -o ${CA_FILES.pem} http://127.0.0.1:${port}${pem}
NODE_EXTRA_CA_CERTS=${CA_FILES.pem} node app.js        # Node
SSL_CERT_FILE=${CA_FILES.pem} python3 app.py           # Python, Go (Linux), Ruby, PHP
curl --cacert ${CA_FILES.pem} …</pre>
<p>Every language step by step: docs/any-client.md in the partner-sim package.</p>
</body>
</html>
`;
}

const noCa = (): SimError =>
  SimError.notFound(
    'CA_NOT_ENABLED',
    'this simulator has no certificate authority: it runs without --https. Start it with `partner-sim serve --https` (a local CA is created once, see `partner-sim ca`) and this page serves its certificate.',
  );

/**
 * The port a device on this machine (or 10.0.2.2) uses: the one the page was opened on, as its
 * Host says (a container's published port may differ from the one listened on), else the
 * socket's own. Digits only, so nothing of a Host header reaches the page but a number.
 */
function portOf(req: Request): number {
  const asked = /:(\d{1,5})$/.exec(req.headers.host ?? '')?.[1];
  return asked ? Number(asked) : (req.socket.localPort ?? 4010);
}

export function caPage(config: Config): Router {
  const router = Router({ caseSensitive: true });
  const dir = caDirOf(config);
  const serve =
    (
      send: (ca: CaCertificate, req: Request) => { type: string; body: string | Buffer; file?: string },
    ): RequestHandler =>
    async (req, res) => {
      const ca = config.https ? await caCertificate(dir) : undefined;
      if (!ca) throw noCa();
      const { type, body, file } = send(ca, req);
      res.set('Cache-Control', 'no-store');
      if (file) res.set('Content-Disposition', `attachment; filename="${file}"`);
      res.type(type).send(body);
    };
  router.get(
    '/',
    serve((ca, req) => ({ type: 'text/html; charset=utf-8', body: page(ca, portOf(req)) })),
  );
  router.get(
    `/${CA_FILES.pem}`,
    // A Buffer, so no charset is added to the type.
    serve((ca) => ({ type: 'application/x-pem-file', body: Buffer.from(ca.pem), file: CA_FILES.pem })),
  );
  router.get(
    `/${CA_FILES.crt}`,
    serve((ca) => ({ type: 'application/x-x509-ca-cert', body: ca.der, file: CA_FILES.crt })),
  );
  return router;
}
