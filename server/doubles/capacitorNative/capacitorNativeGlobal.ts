import { type CapacitorNativeOptions, installCapacitorNative } from './capacitorNative.js';

/**
 * The entry of the one-file browser build (dist/browser/capacitor-native.js, an IIFE):
 * `PartnerSimCapacitorNative.install(options)` for an init script, and, loaded by a
 * `<script src>` tag, installed at once from the tag's data attributes:
 * `data-platform`, `data-simulator-url`, `data-timing`, `data-sdk-base-url`,
 * `data-scan-on-connect`, `data-poll-ms`.
 */

interface ScriptTag {
  src?: string;
  dataset?: Record<string, string | undefined>;
}

function fromTag(d: Record<string, string | undefined>): CapacitorNativeOptions {
  const o: CapacitorNativeOptions = {};
  if (d.platform === 'android' || d.platform === 'ios') o.platform = d.platform;
  if (d.simulatorUrl) o.simulatorUrl = d.simulatorUrl;
  if (d.timing === 'hardware' || d.timing === 'instant') o.timing = d.timing;
  if (d.sdkBaseUrl === 'jp' || d.sdkBaseUrl === 'customDomain') o.sdkBaseUrl = d.sdkBaseUrl;
  if (d.scanOnConnect === 'stop' || d.scanOnConnect === 'continue') o.scanOnConnect = d.scanOnConnect;
  if (d.pollMs && Number(d.pollMs) > 0) o.pollMs = Number(d.pollMs);
  return o;
}

const g = globalThis as unknown as {
  PartnerSimCapacitorNative?: { install: typeof installCapacitorNative };
  document?: { currentScript?: ScriptTag | null };
};
g.PartnerSimCapacitorNative = { install: installCapacitorNative };
const tag = g.document?.currentScript;
if (tag?.src && tag.dataset) installCapacitorNative(fromTag(tag.dataset));
