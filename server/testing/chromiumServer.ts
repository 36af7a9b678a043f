import { chromium } from 'playwright-core';
import { CHROMIUM } from './chromiumPath.js';

/**
 * Debian's Chromium (chromiumPath.ts) for the browser tests: headless, sandbox off
 * (root in CI), nothing phoning home. `npm test`'s global setup starts one browser server for
 * the whole run (its endpoint reaches the workers through CHROMIUM_STATE, setupState.ts); each
 * test file then opens its own context in it instead of launching a browser of its own (issue 33).
 */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Each context is a browser window whose omnibox popup Chromium preloads as a WebUI page of
  // its own (chrome://omnibox-popup.top-chrome/): a renderer that burned ~1.7 s of CPU per
  // test file, measured, for a popup headless tests never open. (playwright merges nothing:
  // Chromium itself joins this list with playwright's own --disable-features.)
  // SpareRendererForSitePerProcess: after each navigation Chromium starts a spare renderer for
  // a next page that a test file mostly never opens; measured, three dashboard pages ran in 6
  // renderer processes and 2.7-3.4 s of renderer CPU with it, 3 and 2.6 s without.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,PreloadTopChromeWebUI,SpareRendererForSitePerProcess',
];

/** One browser server for every test file of a run; its endpoint and how to stop it. */
export async function launchSharedChromium(): Promise<{ wsEndpoint: string; close: () => Promise<void> }> {
  const server = await chromium.launchServer({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  });
  return { wsEndpoint: server.wsEndpoint(), close: () => server.close() };
}
