// A partner app as written for the live service: regional host hard-coded, node:https
// request and get with option objects (as axios and node-fetch call them).
// Prints what it got as one JSON line. Usage: node httpsClient.mjs us|jp
import https from 'node:https';

const jp = process.argv[2] === 'jp';
const HOST = jp ? 'platform-jp.plaud.ai' : 'platform-us.plaud.ai';
const [clientId, secret] = jp
  ? ['demo-client-jp', 'demo-secret-jp-0000']
  : ['demo-client-us', 'demo-secret-us-0000'];

// GETs pass an options object to https.get; other calls a URL string and options to https.request.
function send(method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const opts = { host: HOST, port: 443, path: `/developer/api${path}`, method, headers };
    const done = (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode, body: text ? JSON.parse(text) : undefined }));
    };
    const req =
      method === 'GET'
        ? https.get(opts, done)
        : https.request(`https://${HOST}/developer/api${path}`, { method, headers }, done);
    req.on('error', reject);
    if (method !== 'GET') req.end(body);
  });
}

const partner = await send('POST', '/oauth/partner/access-token', {
  Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
  'Content-Type': 'application/x-www-form-urlencoded',
});
const user = await send(
  'POST',
  '/open/partner/users/access-token',
  { Authorization: `Bearer ${partner.body.access_token}`, 'Content-Type': 'application/json' },
  JSON.stringify({ user_id: 'redirect-user-0002' }),
);
const binding = await send('GET', '/open/partner/sdk/binding?type=notepro&sn=881000000001', {
  Authorization: `Bearer ${user.body.access_token}`,
});

console.log(
  JSON.stringify({
    partner: partner.status,
    user: user.status,
    userToken: user.body.access_token,
    binding: binding.status,
  }),
);
