import { resolve } from 'node:path';
import { option } from './kit.js';

/**
 * `serve --record`: forward partner-API and storage traffic to an upstream and write each
 * exchange to a HAR file (docs/recording.md). Without --record nothing is ever forwarded.
 */
export const recordOptions = [
  option({
    flag: 'record',
    key: 'record',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_RECORD',
    help: 'record mode: forward partner-API and storage requests to --upstream and write each exchange, secrets redacted, to a HAR file in this folder',
    parse: (raw) => resolve(raw),
  }),
  option({
    flag: 'upstream',
    key: 'upstream',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_UPSTREAM',
    help: 'with --record: where requests go: live (by region), live-us, live-jp or the URL of another instance',
    parse: (raw) => {
      if (!/^live(-us|-jp)?$/.test(raw) && !/^https?:\/\/[^?#]+$/.test(raw))
        throw new Error('expected live, live-us, live-jp or an http(s) URL');
      return raw;
    },
  }),
] as const;
