import { defaults, options } from '../config.js';
import type { OptionSpec } from '../configOptions.js';
import { SHORT } from './parseArgs.js';

/**
 * `serve --help` by concern: 55 options in one list hid the few a reader came for. Each
 * option's place is named here; one not named (a new option) still shows, under "Other",
 * and a test asks for every option to have its place.
 */
export const SERVE_GROUPS: ReadonlyArray<readonly [string, readonly string[]]> = [
  [
    'Where it listens and what it keeps',
    ['port', 'host', 'data-dir', 'in-memory', 'store', 'seed', 'fixtures', 'public-url'],
  ],
  ['Logs', ['log-level', 'log-format', 'access-log']],
  ['Control API access', ['admin-token', 'allowed-hosts']],
  [
    'HTTPS and the proxy',
    ['https', 'https-only', 'ca-dir', 'tls-hosts', 'proxy-passthrough', 'storage-host'],
  ],
  [
    'Tokens',
    ['partner-token-ttl', 'user-token-ttl', 'refresh-token-ttl', 'token-claims-clock', 'refresh-auth'],
  ],
  [
    'Uploads and storage',
    ['chunk-size', 'max-file-size', 'presign-expiry', 'download-expiry', 'upload-ttl', 'upload-filetypes'],
  ],
  [
    'Transcription',
    [
      'transcription-delay',
      'result-shape',
      'result-retention',
      'transcriber',
      'transcriber-model',
      'transcriber-diarization',
      'transcriber-timeout',
      'fetch-external-audio',
      'fetch-allow-private',
    ],
  ],
  [
    'Fidelity to live',
    ['error-shape', 'live-rate-limits', 'strict-params', 'regions', 'validate-responses', 'break-response'],
  ],
  [
    'What an instance keeps',
    ['journal-size', 'journal-unverified', 'journal-unverified-bytes', 'keep-per-app', 'phones-per-app'],
  ],
  [
    'Connections and time limits',
    ['max-connections', 'headers-timeout', 'body-timeout', 'housekeeping-tick'],
  ],
  ['Webhooks', ['webhook-timeout', 'webhook-egress']],
  ['Recording live traffic', ['record', 'upstream', 'record-max-size', 'record-body-limit']],
];

function row(o: OptionSpec): string {
  const short = SHORT[o.flag] ? `-${SHORT[o.flag]}, ` : '';
  const negatable = o.kind === 'bool' && o.default === true;
  const flag = `${short}--${negatable ? '[no-]' : ''}${o.flag}${o.kind === 'bool' ? '' : ' <value>'}`;
  const def = defaults[o.key];
  // One default per option: none when the help text already says it, and none for a
  // switch that is off unless given.
  const shown =
    def === undefined ||
    def === false ||
    (Array.isArray(def) && def.length === 0) ||
    /\bdefault\b/.test(o.help)
      ? ''
      : ` (default: ${o.key === 'dataDir' ? './data' : o.key === 'fixturesDir' ? '<package>/fixtures' : String(def)})`;
  const env = o.env ? ` [env ${o.env}]` : '';
  const choices = o.choices ? ` {${o.choices.join('|')}}` : '';
  return `  ${flag.padEnd(30)} ${o.help}${choices}${shown}${env}`;
}

export function serveHelp(): string {
  const byFlag = new Map(options.map((o) => [o.flag, o as OptionSpec]));
  const placed = new Set(SERVE_GROUPS.flatMap(([, flags]) => flags));
  const other = options.filter((o) => !placed.has(o.flag)).map((o) => o.flag);
  const groups = [...SERVE_GROUPS, ...(other.length ? [['Other', other] as const] : [])];
  const sections = groups.map(([title, flags]) => {
    const rows = flags.flatMap((f) => {
      const o = byFlag.get(f);
      return o ? [row(o)] : [];
    });
    return `${title}:\n${rows.join('\n')}`;
  });
  return `Usage: partner-sim serve [options]

Runs the simulator. Flags win over environment variables, which win over defaults. Durations
take units (500ms, 30s, 2m, 1h, 7d); a bare number is in the unit the option names.

${sections.join('\n\n')}

  ${'-h, --help'.padEnd(30)} show this help
`;
}
