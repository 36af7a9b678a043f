import { patchFetch } from './fetchPatch.js';
import { redirectTarget, simulatorUrl } from './hosts.js';
import { patchHttp } from './httpPatch.js';

/**
 * `node --import partner-sim/redirect app.js`: an unchanged partner app whose code names the
 * live hosts talks to the simulator at `PARTNER_SIM_URL` (default http://127.0.0.1:4010),
 * through global fetch and through node:http/https (axios, node-fetch). This is a preload of
 * someone else's process, not the simulator, so it reads its one setting from the environment
 * itself.
 */
const sim = simulatorUrl(process.env.PARTNER_SIM_URL);
const target = (url: URL): URL | undefined => redirectTarget(url, sim);
patchFetch(target);
patchHttp(target);
