import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type BrowserContext, chromium } from 'playwright-core';
import { it } from 'vitest';

/**
 * Debian's Chromium driven by playwright-core (never a browser download), for the browser
 * tests: the dashboard's and the Capacitor double's. Headless, sandbox off (root in CI),
 * nothing phoning home, a throw-away profile.
 */
const CHROMIUM = '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** In CI a missing Chromium fails the file instead of skipping it in silence. */
export function requireChromiumInCi(what: string): void {
  if (haveChromium || !process.env.CI) return;
  it(`needs Debian Chromium for ${what}`, () => {
    throw new Error(`${CHROMIUM} is missing: .ci/run installs it with apt-get install chromium`);
  });
}

export async function openChromium(
  options: Parameters<typeof chromium.launchPersistentContext>[1] = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'partner-sim-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ...options,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** A test page's entry bundled as one ES module for the browser (imports resolved, `alias` applied). */
export async function bundlePage(entry: string, alias: Record<string, string> = {}): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
    alias,
  });
  return out.outputFiles[0]!.text;
}
