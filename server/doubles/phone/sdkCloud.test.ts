import { describe, expect, it } from 'vitest';
import { apiBaseFor, deviceMountFor, sdkHostFor } from './sdkCloud.js';

// Where a double's calls go for the customDomain an app gives initSDK: every live host to its
// region's mounts on the simulator, the opt-in EU and SG hosts too (the simulator answers
// them only under --regions; without it their mounts say REGION_NOT_ENABLED).
const SIM = 'http://127.0.0.1:4010';

describe('sdkCloud', () => {
  it.each([
    ['platform-us.plaud.ai', ''],
    ['https://platform-jp.plaud.ai', '/jp'],
    ['https://platform-eu.plaud.ai/', '/eu'],
    ['platform-sg.plaud.ai', '/sg'],
  ])('sends customDomain %s to the simulator under %s', (domain, root) => {
    expect(apiBaseFor(domain, SIM)).toBe(`${SIM}${root}/developer/api`);
    expect(deviceMountFor(domain, SIM)).toBe(`${SIM}${root}/__device`);
  });

  it('takes any other host as a simulator, and keeps the Android SDK default on JP', () => {
    expect(apiBaseFor('127.0.0.1:4011', SIM)).toBe('http://127.0.0.1:4011/developer/api');
    expect(sdkHostFor('android', 'platform-sg.plaud.ai', 'jp')).toBe('platform-jp.plaud.ai');
    expect(sdkHostFor('android', 'platform-sg.plaud.ai', 'customDomain')).toBe('platform-sg.plaud.ai');
    expect(sdkHostFor('ios', 'platform-eu.plaud.ai', 'jp')).toBe('platform-eu.plaud.ai');
  });
});
