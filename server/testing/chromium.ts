import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { type BrowserContext, type BrowserContextOptions, chromium } from 'playwright-core';
import { it } from 'vitest';
import { CHROMIUM, CHROMIUM_INSTALL, haveChromium } from './chromiumPath.js';
import { CHROMIUM_ARGS } from './chromiumServer.js';
import { awaitSetupState, CHROMIUM_STATE } from './setupState.js';

export { haveChromium };

/** In CI a missing Chromium fails the file instead of skipping it in silence. */
export function requireChromiumInCi(what: string): void {
  if (haveChromium || !process.env.CI) return;
  it(`needs Debian Chromium for ${what}`, () => {
    throw new Error(`no Chromium (${CHROMIUM}): .ci/run installs it, ${CHROMIUM_INSTALL}`);
  });
}

/**
 * A fresh browser context for one test file: in the run's shared Chromium when the global
 * setup started one, else (a file run on its own) in a browser launched for it with a
 * throw-away profile. Closing it leaves the shared browser running for the other files.
 */
export async function openChromium(
  options: BrowserContextOptions = {},
): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const state = process.env[CHROMIUM_STATE];
  // Not started (its launch failed): launched for this file, as when it runs alone.
  const shared = state && (await awaitSetupState(state, 'the shared Chromium').catch(() => undefined));
  if (shared) {
    const browser = await chromium.connect(shared);
    const context = await browser.newContext(options);
    return {
      context,
      close: async () => {
        await context.close();
        await browser.close(); // disconnects; the server stops in the global teardown
      },
    };
  }
  const profile = await mkdtemp(join(tmpdir(), 'partner-sim-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
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
