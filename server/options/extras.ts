import { parseDuration } from '../core/duration.js';
import { type EgressRule, parseEgress } from '../webhooks/egress.js';
import { httpUrl, option } from './kit.js';

/** Speech engines and external audio, connection limits, webhook deliveries, test switches. */
export const extraOptions = [
  option({
    flag: 'transcriber',
    key: 'transcriber',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_TRANSCRIBER',
    help: "speech server for real words: base URL of a POST /v1/audio/transcriptions server (whisper.cpp, speaches, LocalAI), e.g. http://127.0.0.1:8080; 'none' (default): made-up text",
    parse: (raw) => (raw === 'none' ? undefined : httpUrl(raw)),
  }),
  option({
    flag: 'transcriber-model',
    key: 'transcriberModel',
    kind: 'string',
    default: 'whisper-1',
    env: 'PARTNER_SIM_TRANSCRIBER_MODEL',
    help: 'model form field sent to the --transcriber server (whisper.cpp ignores it; speaches needs one)',
  }),
  option({
    flag: 'transcriber-diarization',
    key: 'transcriberDiarization',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_TRANSCRIBER_DIARIZATION',
    help: 'speaker labels for diarization tasks from a POST /v1/audio/diarization server (LocalAI); default: one speaker',
    parse: httpUrl,
  }),
  option({
    flag: 'transcriber-timeout',
    key: 'transcriberTimeoutMs',
    kind: 'string',
    default: 300_000,
    env: 'PARTNER_SIM_TRANSCRIBER_TIMEOUT',
    help: "how long one --transcriber request may take before the task ends in FAILURE: '5m', '90s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'fetch-external-audio',
    key: 'fetchExternalAudio',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_FETCH_EXTERNAL_AUDIO',
    help: 'fetch file_urls outside the simulator (http(s), 200 MiB, 60 s; no private addresses) for their real duration, MD5 and engine words (default: never fetched)',
  }),
  option({
    flag: 'fetch-allow-private',
    key: 'fetchAllowPrivate',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_FETCH_ALLOW_PRIVATE',
    help: 'let --fetch-external-audio reach private, loopback and link-local addresses',
  }),
  option({
    flag: 'max-connections',
    key: 'maxConnections',
    kind: 'int',
    default: 2048,
    env: 'PARTNER_SIM_MAX_CONNECTIONS',
    help: 'open connections at most: when full, the oldest idle one is closed, else a new one gets 503',
  }),
  option({
    flag: 'headers-timeout',
    key: 'headersTimeoutMs',
    kind: 'string',
    default: 20_000,
    env: 'PARTNER_SIM_HEADERS_TIMEOUT',
    help: "time a connection has to send a request's headers: a duration such as '20s' or ms; with --https one that sends nothing or does not finish its TLS handshake is closed after 10 s at most",
    parse: parseDuration,
  }),
  option({
    flag: 'body-timeout',
    key: 'bodyTimeoutMs',
    kind: 'string',
    default: 30_000,
    env: 'PARTNER_SIM_BODY_TIMEOUT',
    help: "longest pause while a request body arrives, then the connection is cut: a duration such as '30s' or ms",
    parse: parseDuration,
  }),
  option({
    flag: 'webhook-timeout',
    key: 'webhookTimeoutMs',
    kind: 'string',
    default: 10_000,
    env: 'PARTNER_SIM_WEBHOOK_TIMEOUT',
    help: "deadline of one webhook delivery POST (connect, answer and body): a duration such as '10s' or ms, 100 ms to 10 min",
    parse: (raw) => {
      const ms = parseDuration(raw);
      if (ms < 100 || ms > 600_000) throw new Error('from 100 ms to 10 minutes');
      return ms;
    },
  }),
  option({
    flag: 'webhook-egress',
    key: 'webhookEgress',
    kind: 'string',
    default: 'local-and-public' as EgressRule,
    env: 'PARTNER_SIM_WEBHOOK_EGRESS',
    help: "where webhook deliveries may go: 'local-and-public' (default: loopback and LAN receivers too), 'public' (public addresses only) or a comma list of host names; the simulator's own address and link-local (metadata) addresses never",
    parse: parseEgress,
  }),
  option({
    flag: 'validate-responses',
    key: 'validateResponses',
    kind: 'bool',
    default: false,
    env: 'PARTNER_SIM_VALIDATE_RESPONSES',
    help: 'check every response against openapi.yaml; a violation answers 500 naming it',
  }),
  option({
    flag: 'break-response',
    key: 'breakResponse',
    kind: 'string',
    default: undefined as string | undefined,
    env: 'PARTNER_SIM_BREAK_RESPONSE',
    help: 'test-only: drop a field from responses, as operationId:field',
  }),
] as const;
