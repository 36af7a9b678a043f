import { resolve } from 'node:path';
import { parseByteSize } from '../core/byteSize.js';
import { option } from './kit.js';

const MiB = 1024 ** 2;

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
    help: 'with --record: where requests go: live (by region), live-us, live-jp, live-eu, live-sg or the URL of another instance',
    parse: (raw) => {
      if (!/^live(-us|-jp|-eu|-sg)?$/.test(raw) && !/^https?:\/\/[^?#]+$/.test(raw))
        throw new Error('expected live, live-us, live-jp, live-eu, live-sg or an http(s) URL');
      return raw;
    },
  }),
  option({
    flag: 'record-max-size',
    key: 'recordMaxSize',
    kind: 'int',
    default: 64 * MiB,
    env: 'PARTNER_SIM_RECORD_MAX_SIZE',
    help: "with --record: a HAR file past this size is closed and the session goes on in a new one (default 64MiB; '1GiB' or bytes)",
    // Below 64 KiB a file would hold a handful of exchanges: a typo, not a choice.
    parse: (raw) => {
      const bytes = parseByteSize(raw);
      if (bytes < 64 * 1024) throw new Error('at least 64KiB');
      return bytes;
    },
  }),
  option({
    flag: 'record-body-limit',
    key: 'recordBodyLimit',
    kind: 'int',
    default: MiB,
    env: 'PARTNER_SIM_RECORD_BODY_LIMIT',
    help: "with --record: text bodies up to this size are kept (redacted); larger ones, like audio, as their size and MD5 (default 1MiB; '256KiB' or bytes)",
    parse: parseByteSize,
  }),
] as const;
