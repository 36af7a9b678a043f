import { parseRegions } from '../core/regions.js';
import { patchFetch } from './fetchPatch.js';
import { closedRegion, redirectTarget, simulatorUrl } from './hosts.js';
import { patchHttp } from './httpPatch.js';

/**
 * `node --import partner-sim/redirect app.js`: an unchanged partner app whose code names the
 * live hosts talks to the simulator at `PARTNER_SIM_URL` (default http://127.0.0.1:4010),
 * through global fetch and through node:http/https (axios, node-fetch). This is a preload of
 * someone else's process, not the simulator, so it reads its settings from the environment
 * itself: `PARTNER_SIM_REGIONS` (as `serve --regions`, default `us,jp`) names the regions
 * served; a host of another (EU, SG: "Coming soon" on live) fails as a name that does not
 * resolve, as it does on live, without any lookup.
 */
const sim = simulatorUrl(process.env.PARTNER_SIM_URL);
const regions = parseRegions(process.env.PARTNER_SIM_REGIONS || 'us,jp');
const target = (url: URL): URL | 'unresolved' | undefined =>
  closedRegion(url.hostname, regions) ? 'unresolved' : redirectTarget(url, sim);
patchFetch(target);
patchHttp(target);
