import { describe, expect, it } from 'vitest';
import { openTarget as openContractTarget } from '../contracts/target/index.js';
import { serveHelp } from './cli/serveHelp.js';
import { openTarget } from './cli/target.js';
import { banner } from './cli.js';
import { ConfigError, parseConfig } from './config.js';
import { decodeJwt } from './domain/jwt.js';
import { bearer, DEMO_JP, exchangeToken, http, userToken } from './testing/http.js';
import { useTestServers } from './testing/useTestServers.js';

// EU and SG: "Coming soon" on every live overview page, their hosts do not resolve. Refused
// unless `--regions` names them; served like JP when it does.
const servers = useTestServers();

describe('--regions', () => {
  it('defaults to us,jp, takes eu and sg, and refuses other names or a list without us and jp', () => {
    expect(parseConfig({}).regions).toEqual(['us', 'jp']);
    expect(parseConfig({ regions: 'sg, US,jp' }).regions).toEqual(['us', 'jp', 'sg']);
    expect(parseConfig({}, { PARTNER_SIM_REGIONS: 'us,jp,eu,sg' }).regions).toEqual(['us', 'jp', 'eu', 'sg']);
    expect(() => parseConfig({ regions: 'us,jp,cn' })).toThrow(ConfigError);
    expect(() => parseConfig({ regions: 'us,jp,cn' })).toThrow(/--regions.*"cn" is not a region/);
    expect(() => parseConfig({ regions: 'us,eu' })).toThrow(/live serves jp/);
    const group = serveHelp()
      .split('\n\n')
      .find((g) => g.startsWith('Fidelity to live:'));
    expect(group).toMatch(/--regions <value> .*us,jp \(the default\).*\[env PARTNER_SIM_REGIONS\]/);
    // The start banner names the base URL of each region served, and only those.
    expect(banner('http://h:1', parseConfig({}), [])).not.toMatch(/EU base_url|SG base_url/);
    expect(banner('http://h:1', parseConfig({ regions: 'us,jp,sg' }), [])).toContain(
      'SG base_url: http://h:1/sg/developer/api',
    );
  });
});

describe('a simulator on the default regions refuses EU and SG as live does', () => {
  it('answers their API and device prefixes with a 404 that names --regions', async () => {
    const s = await servers.start();
    for (const [method, path] of [
      ['POST', '/eu/developer/api/oauth/partner/access-token'],
      ['GET', '/sg/developer/api/open/partner/sdk/binding?sn=1'],
      ['GET', '/eu/__device/phones'],
    ] as const) {
      const r = await http(method, `${s.url}${path}`);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type')).toContain('application/json');
      expect(r.body.detail).toBe('REGION_NOT_ENABLED');
      expect(r.body.message).toContain(`--regions us,jp,${path.slice(1, 3)}`);
    }
    const index = await http('GET', `${s.url}/`, { headers: { accept: 'application/json' } });
    expect(Object.keys(index.body.api)).not.toContain('eu');
  });

  it('refuses to create an app in EU or SG with 400 naming --regions (never 500)', async () => {
    const s = await servers.start();
    for (const region of ['eu', 'sg']) {
      const r = await http('POST', `${s.admin}/apps`, { json: { region } });
      expect(r.status).toBe(400);
      expect(r.body.detail).toBe('REGION_NOT_ENABLED');
      expect(r.body.message).toContain(`--regions us,jp,${region}`);
    }
    const listed = await http('GET', `${s.admin}/apps`);
    expect(JSON.stringify(listed.body)).not.toMatch(/"region":"(eu|sg)"/);
  });
});

describe('with --regions us,jp,eu,sg', () => {
  it('mints tokens for an EU app under /eu/developer/api, refused in US and JP as JP ones are', async () => {
    const s = await servers.start({ regions: ['us', 'jp', 'eu', 'sg'] });
    const created = await http('POST', `${s.admin}/apps`, { json: { client_id: 'eu-app', region: 'eu' } });
    expect(created.status).toBe(201);
    expect(created.body.region).toBe('eu');
    const eu = `${s.url}/eu/developer/api`;
    const { partner, user } = await userToken(eu, created.body);
    expect(decodeJwt(user)).toMatchObject({ client_id: 'eu-app', region: 'eu' });
    // The EU user token in the US region: what a JP token gets there.
    const inUs = await http('POST', `${s.api}/open/partner/files/upload/generate-presigned-urls`, {
      headers: bearer(user),
      json: { filesize: 4, filetype: 'mp3' },
    });
    expect(inUs.status).toBe(401);
    expect(inUs.body.detail).toBe('CLIENT_USER_NOT_FOUND');
    expect(inUs.body.message).toContain('exists in the EU region: send it to /eu/developer/api');
    expect(inUs.body.message).toContain('went to the US API');
    // The EU partner token in SG, and the EU credentials in JP.
    const inSg = await http('POST', `${s.url}/sg/developer/api/open/partner/users/access-token`, {
      headers: bearer(partner),
      json: { user_id: 'partner-user-0001' },
    });
    expect(inSg.status).toBe(401);
    expect(inSg.body.detail).toBe('CLIENT_USER_NOT_FOUND');
    const inJp = await exchangeToken(s.apiJp, created.body);
    expect(inJp.status).toBe(401);
    expect(inJp.body.detail).toBe('CLIENT_NOT_FOUND');
    // And a JP app's credentials in EU.
    const jpInEu = await exchangeToken(eu, DEMO_JP);
    expect(jpInEu.status).toBe(401);
    expect(jpInEu.body.message).toContain('went to the EU API');
  });

  it('serves SG on its device prefix and lists the regions served', async () => {
    const s = await servers.start({ regions: ['us', 'jp', 'sg'] });
    const index = await http('GET', `${s.url}/`, { headers: { accept: 'application/json' } });
    expect(index.body.api.sg).toBe(`${s.url}/sg/developer/api`);
    expect(index.body.api.eu).toBeUndefined();
    const created = await http('POST', `${s.admin}/apps`, { json: { region: 'sg' } });
    expect(created.status).toBe(201);
    const { user } = await userToken(`${s.url}/sg/developer/api`, created.body);
    const phone = await http('POST', `${s.url}/sg/__device/phones`, { headers: bearer(user), json: {} });
    expect(phone.status, phone.text).toBe(201);
    expect(phone.body.region).toBe('sg');
    const eu = await http('POST', `${s.admin}/apps`, { json: { region: 'eu' } });
    expect(eu.status).toBe(400);
    expect(eu.body.message).toContain('--regions us,jp,eu,sg');
  });
});

describe('--region eu/sg on the client commands and the contract suite', () => {
  it('gives the client commands an SG app on their in-process simulator', async () => {
    const t = await openTarget('sim', {}, {}, 'sg');
    try {
      expect(t.label).toBe('in-process simulator (SG)');
      expect(t.api).toMatch(/\/sg\/developer\/api$/);
      const r = await exchangeToken(t.api, t.app);
      expect(r.status).toBe(200);
      expect(decodeJwt(r.body.access_token).region).toBe('sg');
    } finally {
      await t.stop();
    }
  });

  it('runs the contract suite in an EU app on its in-process simulator', async () => {
    const t = await openContractTarget({ CONTRACT_REGION: 'eu' });
    try {
      expect(t.region).toBe('eu');
      expect(t.api).toMatch(/\/eu\/developer\/api$/);
      const { user } = await userToken(t.api, t.app);
      expect(decodeJwt(user)).toMatchObject({ region: 'eu', client_id: t.app.client_id });
    } finally {
      await t.close();
    }
  });
});
