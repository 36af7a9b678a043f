// A partner app as written for the live service: regional host hard-coded, global fetch
// (plain URLs, a Request object, and the presigned upload URL the service hands back).
// Prints what it got as one JSON line. Usage: node fetchClient.mjs us|jp
const jp = process.argv[2] === 'jp';
const BASE = jp ? 'https://platform-jp.plaud.ai/developer/api' : 'https://platform-us.plaud.ai/developer/api';
const [clientId, secret] = jp
  ? ['demo-client-jp', 'demo-secret-jp-0000']
  : ['demo-client-us', 'demo-secret-us-0000'];

const partner = await fetch(`${BASE}/oauth/partner/access-token`, {
  method: 'POST',
  headers: { Authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}` },
});
const { access_token: partnerToken } = await partner.json();

const user = await fetch(
  new Request(`${BASE}/open/partner/users/access-token`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${partnerToken}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ user_id: 'redirect-user-0001' }),
  }),
);
const { access_token: userToken } = await user.json();

const presign = await fetch(new URL(`${BASE}/open/partner/files/upload/generate-presigned-urls`), {
  method: 'POST',
  headers: { Authorization: `Bearer ${userToken}`, 'Content-Type': 'application/json' },
  body: JSON.stringify({ filesize: 4, filetype: 'mp3' }),
});
const session = await presign.json();
const put = await fetch(session.Parts[0].PresignedUrl, { method: 'PUT', body: 'abcd' });

console.log(
  JSON.stringify({
    partner: partner.status,
    user: user.status,
    userToken,
    presign: presign.status,
    put: put.status,
    etag: put.headers.get('etag'),
  }),
);
