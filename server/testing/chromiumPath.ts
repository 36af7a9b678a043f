import { existsSync } from 'node:fs';

/**
 * Which of Debian's Chromium builds the browser tests drive (never a browser download), the
 * first installed of:
 * - `chromium-headless-shell` (Debian package of that name): Chromium's headless-only build,
 *   what playwright itself runs headless. The browser files took less CPU in it than in the
 *   full browser, four runs measured alternately (38-41 s against 44-56 s; issue 33), with
 *   the same Blink and V8;
 * - `chromium`, the full browser, run headless.
 * No playwright here: the global setup asks without loading it.
 */
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'] as const;

/** The one to launch (the first candidate when none is installed: the one named in errors). */
export const CHROMIUM: string =
  CHROMIUM_CANDIDATES.find((path) => existsSync(path)) ?? CHROMIUM_CANDIDATES[0];
export const haveChromium = existsSync(CHROMIUM);

/** How to get one, for the lines that say it is missing. */
export const CHROMIUM_INSTALL = 'apt-get install chromium-headless-shell (or chromium)';
