import { parseDuration, parseSeconds } from '../core/duration.js';
import { DEFAULT_REGIONS, parseRegions } from '../core/regions.js';
import type { Region } from '../domain/apps.js';
import { GiB, option } from './kit.js';

/** How the simulated service behaves: tokens, uploads, transcription, answer shapes, journal. */
export const serviceOptions = [
  option({
    flag: 'partner-token-ttl',
    key: 'partnerTokenTtlS',
    kind: 'string',
    default: 3600,
    env: 'PARTNER_SIM_PARTNER_TOKEN_TTL',
    help: 'partner token lifetime (1h, 90m; a bare number: seconds)',
    parse: parseSeconds,
  }),
  option({
    flag: 'user-token-ttl',
    key: 'userTokenTtlS',
    kind: 'string',
    default: 86400,
    env: 'PARTNER_SIM_USER_TOKEN_TTL',
    help: 'user token lifetime when the request gives none (1h, 90m; a bare number: seconds)',
    parse: parseSeconds,
  }),
  option({
    flag: 'refresh-token-ttl',
    key: 'refreshTokenTtlS',
    kind: 'string',
    default: 30 * 86400,
    env: 'PARTNER_SIM_REFRESH_TOKEN_TTL',
    help: 'refresh token lifetime (1h, 90m; a bare number: seconds)',
    parse: parseSeconds,
  }),
  option({
    flag: 'token-claims-clock',
    key: 'tokenClaimsClock',
    kind: 'string',
    default: 'wall' as 'wall' | 'app',
    env: 'PARTNER_SIM_TOKEN_CLAIMS_CLOCK',
    help: "JWT iat/exp: 'wall' on the real clock (clients check exp against theirs), 'app' on the app's clock; expiry follows the app's clock either way",
    choices: ['wall', 'app'],
  }),
  option({
    flag: 'refresh-auth',
    key: 'refreshAuth',
    kind: 'string',
    default: 'basic' as 'basic' | 'optional',
    env: 'PARTNER_SIM_REFRESH_AUTH',
    help: "refresh: 'basic' requires Basic auth (the API reference); 'optional' also takes the form field alone (the quickstart)",
    choices: ['basic', 'optional'],
  }),
  option({
    flag: 'chunk-size',
    key: 'chunkSize',
    kind: 'int',
    default: 5 * 1024 * 1024,
    env: 'PARTNER_SIM_CHUNK_SIZE',
    help: 'ChunkSize of upload sessions, bytes',
  }),
  option({
    flag: 'max-file-size',
    key: 'maxFileSize',
    kind: 'int',
    default: 5 * GiB,
    env: 'PARTNER_SIM_MAX_FILE_SIZE',
    help: 'largest accepted filesize, bytes',
  }),
  option({
    flag: 'presign-expiry',
    key: 'presignExpiryS',
    kind: 'string',
    default: 3600,
    env: 'PARTNER_SIM_PRESIGN_EXPIRY',
    help: 'lifetime of part upload URLs (1h, 90m; a bare number: seconds)',
    parse: parseSeconds,
  }),
  option({
    flag: 'download-expiry',
    key: 'downloadExpiryS',
    kind: 'string',
    default: 86400,
    env: 'PARTNER_SIM_DOWNLOAD_EXPIRY',
    help: 'lifetime of DownloadUrl (1h, 90m; a bare number: seconds)',
    parse: parseSeconds,
  }),
  option({
    flag: 'upload-ttl',
    key: 'uploadTtlS',
    kind: 'string',
    default: 86400,
    env: 'PARTNER_SIM_UPLOAD_TTL',
    help: 'abandoned upload sessions are removed after this (1h, 90m; a bare number: seconds)',
    parse: parseSeconds,
  }),
  option({
    flag: 'upload-filetypes',
    key: 'uploadFiletypes',
    kind: 'string',
    default: [] as string[],
    env: 'PARTNER_SIM_UPLOAD_FILETYPES',
    help: 'comma list of upload filetypes accepted besides mp3 and opus (live refuses others), e.g. wav,m4a',
    parse: (raw) => {
      const list = raw
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      const bad = list.find((t) => !/^[a-z0-9]{1,16}$/.test(t));
      if (bad !== undefined) throw new Error(`${JSON.stringify(bad)} is not a lowercase file extension`);
      return list;
    },
  }),
  option({
    flag: 'transcription-delay',
    key: 'transcriptionDelay',
    kind: 'string',
    default: 'auto' as number | 'auto',
    env: 'PARTNER_SIM_TRANSCRIPTION_DELAY',
    help: "total transcription time ('3s', '500ms', ms), 'instant' (0) or 'auto' (a few seconds, scaled by audio duration)",
    parse: (raw) => {
      if (raw === 'auto') return 'auto';
      if (raw === 'instant') return 0;
      try {
        return parseDuration(raw);
      } catch {
        throw new Error("expected 'auto', 'instant' or a duration such as '3s', '500ms' or ms");
      }
    },
  }),
  option({
    flag: 'result-shape',
    key: 'resultShape',
    kind: 'string',
    default: 'both' as 'both' | 'spec' | 'live',
    env: 'PARTNER_SIM_RESULT_SHAPE',
    help: 'transcription result shape: both (data.segments and data.results), spec (segments) or live (results)',
    choices: ['both', 'spec', 'live'],
  }),
  option({
    flag: 'result-retention',
    key: 'resultRetentionMs',
    kind: 'string',
    default: 7 * 86_400_000,
    env: 'PARTNER_SIM_RESULT_RETENTION',
    help: "how long a finished transcription task stays readable: a duration such as '7d', '36h', '90m', '30s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'error-shape',
    key: 'errorShape',
    kind: 'string',
    default: 'spec' as 'spec' | 'live',
    env: 'PARTNER_SIM_ERROR_SHAPE',
    help: 'error bodies: spec ({detail, message}) or live ({code, message})',
    choices: ['spec', 'live'],
  }),
  option({
    flag: 'live-rate-limits',
    key: 'liveRateLimits',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_LIVE_RATE_LIMITS',
    help: 'enforce documented live rate limits per client (token exchange 10/min, transcription API 60/min)',
  }),
  option({
    flag: 'strict-params',
    key: 'strictParams',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_STRICT_PARAMS',
    help: 'refuse unknown fields in transcription params with 422 (default: ignore them, warn in X-Sim-Warning)',
  }),
  option({
    flag: 'regions',
    key: 'regions',
    kind: 'string',
    default: DEFAULT_REGIONS as readonly Region[],
    env: 'PARTNER_SIM_REGIONS',
    help: "comma list of regions served: live's us,jp (the default), plus eu and/or sg, which live lists as Coming soon (their hosts do not resolve) and the simulator refuses unless named",
    parse: parseRegions,
  }),
  option({
    flag: 'journal-size',
    key: 'journalSize',
    kind: 'int',
    default: 1000,
    env: 'PARTNER_SIM_JOURNAL_SIZE',
    help: 'request journal entries kept per app (one ring each, plus one for no app)',
  }),
  option({
    flag: 'journal-unverified',
    key: 'journalUnverified',
    kind: 'int',
    default: 5000,
    env: 'PARTNER_SIM_JOURNAL_UNVERIFIED',
    help: "journal entries of requests that only claimed an app's id (a wrong key), kept over all apps together; the oldest go first",
  }),
  option({
    flag: 'journal-unverified-bytes',
    key: 'journalUnverifiedBytes',
    kind: 'int',
    default: 16 * 1024 * 1024,
    env: 'PARTNER_SIM_JOURNAL_UNVERIFIED_BYTES',
    help: 'bytes those unverified entries keep in memory together, at most',
  }),
  option({
    flag: 'keep-per-app',
    key: 'keepPerApp',
    kind: 'int',
    default: 1000,
    env: 'PARTNER_SIM_KEEP_PER_APP',
    help: 'records of each kind an app keeps, the newest (refresh tokens, upload sessions, files, transcription tasks, webhook deliveries, devices it signed): the oldest go on the next housekeeping tick; 0: no bound',
  }),
  option({
    flag: 'phones-per-app',
    key: 'phonesPerApp',
    kind: 'int',
    default: 100,
    env: 'PARTNER_SIM_PHONES_PER_APP',
    help: 'virtual phones (device protocol SDK sessions) an app may hold at once; one more is refused with 409 TOO_MANY_PHONES',
  }),
] as const;
