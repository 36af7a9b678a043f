import {
  ADMIN_PREFIX,
  DEVICE_PREFIX,
  JP_API,
  JP_DEVICE_PREFIX,
  STORAGE_PREFIX,
  US_API,
} from '../http/apiPrefixes.js';
import type { SpecIndex } from '../spec/openapi.js';

export interface Server {
  url: string;
  description: string;
}

/** Where a reader of the served document can call: this simulator, under the address asked. */
export const API_SERVERS = (base: string): Server[] => [
  { url: `${base}${US_API}`, description: 'This simulator, US region.' },
  { url: `${base}${JP_API}`, description: 'This simulator, JP region.' },
];
export const ADMIN_SERVERS = (base: string): Server[] => [
  { url: `${base}${ADMIN_PREFIX}`, description: 'This simulator’s control API.' },
];

export const DEVICE_SERVERS = (base: string): Server[] => [
  {
    url: `${base}${DEVICE_PREFIX}`,
    description: 'This simulator’s device protocol, SDK with the US base URL.',
  },
  { url: `${base}${JP_DEVICE_PREFIX}`, description: 'The same, SDK with the JP base URL.' },
];

// The simulator's address as the documents write it (their path-level storage `servers`).
const STORAGE_SERVER_LINE = /^(\s*- url: )http:\/\/127\.0\.0\.1:4010\/storage\s*$/gm;
// The top-level `servers:` block: the key at column 0 and every indented or `-` line after it.
const TOP_SERVERS = /^servers:[ \t]*\n(?:[ \t-].*\n)*/m;

/**
 * The document's text with `servers` naming `base`. Text, not a re-serialised parse: comments,
 * key order and formatting stay as written, and it costs one pass over the string.
 */
export function withServers(source: string, servers: Server[], base: string): string {
  const block = servers
    .map((s) => `  - url: ${JSON.stringify(s.url)}\n    description: ${JSON.stringify(s.description)}\n`)
    .join('');
  return source
    .replace(TOP_SERVERS, () => `servers:\n${block}`)
    .replace(
      STORAGE_SERVER_LINE,
      (_m, lead: string) => `${lead}${JSON.stringify(`${base}${STORAGE_PREFIX}`)}`,
    );
}

// Few addresses reach one simulator (localhost, 127.0.0.1, a LAN name, --public-url), but the
// Host header is the client's to choose: keep the most recent few, never one per caller.
const MAX_BASES = 8;
const served = new WeakMap<SpecIndex, Map<string, string>>();

/** The document as served from `base`, computed once per base URL and kept. */
export function servedSpec(spec: SpecIndex, base: string, servers: (base: string) => Server[]): string {
  let byBase = served.get(spec);
  if (!byBase) {
    byBase = new Map();
    served.set(spec, byBase);
  }
  let text = byBase.get(base);
  if (text === undefined) {
    text = withServers(spec.source, servers(base), base);
    if (byBase.size >= MAX_BASES) byBase.delete(byBase.keys().next().value as string);
    byBase.set(base, text);
  }
  return text;
}
