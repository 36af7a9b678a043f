#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { EXAMPLES, withExamples } from './cli/examples.js';
import { parseArgs } from './cli/parseArgs.js';
import { serveFlags, serveValues } from './cli/serveFlags.js';
import { serveHelp } from './cli/serveHelp.js';
import { type Config, parseConfig } from './config.js';
import { wantsPretty } from './core/logger.js';
import { nearestName } from './core/nearest.js';
import { fromRoot } from './core/root.js';
import type { NewApp, PartnerApp } from './domain/apps.js';
import { type RunningSimulator, serveSimulator } from './simulator.js';
import { readFixture } from './spec/fixtures.js';
import { redactUrl } from './store/postgres/url.js';

// The client commands are loaded when run: `serve` starts without their ~30 modules. `help`
// loads only the command's help text.
interface Command {
  summary: string;
  help: () => Promise<string>;
  run: (argv: string[]) => Promise<number>;
}
const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'run the simulator (partner API, storage host, control API)',
    help: async () => serveHelp(),
    run: serve,
  },
  contract: {
    summary: 'run the contract suite against sim, a URL or live',
    help: async () => (await import('./contract/command.js')).contractHelp,
    run: async (a) => (await import('./contract/command.js')).runContract(a),
  },
  compare: {
    summary: 'replay a recording (serve --record) against the simulator and report drift',
    help: async () => (await import('./compare/command.js')).compareHelp,
    run: async (a) => (await import('./compare/command.js')).runCompare(a),
  },
  transcribe: {
    summary: 'upload an audio file and print its transcript',
    help: async () => (await import('./cli/transcribe.js')).transcribeHelp,
    run: async (a) => (await import('./cli/transcribe.js')).runTranscribe(a),
  },
  binding: {
    summary: "show a device's binding, history and recovery verdict",
    help: async () => (await import('./cli/binding.js')).bindingHelp,
    run: async (a) => (await import('./cli/binding.js')).runBinding(a),
  },
  ca: {
    summary: 'print the local CA of serve --https and how to trust it',
    help: async () => (await import('./cli/ca.js')).caHelp,
    run: async (a) => (await import('./cli/ca.js')).runCa(a),
  },
  health: {
    summary: "check a running simulator's health as it listens (the image's HEALTHCHECK)",
    help: async () => (await import('./cli/health.js')).healthHelp,
    run: async (a) => (await import('./cli/health.js')).runHealth(a),
  },
};

/** A command's help and examples (`<command> --help`, `help <command>`). */
async function commandHelp(name: string): Promise<string> {
  return withExamples(name, await COMMANDS[name]!.help());
}

/** Asked for help: -h or --help among the command's own arguments (not after `--`, contract's filters). */
const asksHelp = (args: string[]): boolean => {
  const own = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  return own.includes('--help') || own.includes('-h');
};

/** "unknown command 'serv'; did you mean 'serve'?" */
function unknownCommand(cmd: string): string {
  const hint = nearestName(cmd, Object.keys(COMMANDS));
  return `partner-sim: unknown command '${cmd}'${hint ? `; did you mean '${hint}'?` : ''}\nRun 'partner-sim --help' for the commands.\n`;
}

function mainHelp(): string {
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`);
  const examples = ['serve', 'contract', 'transcribe'].map((c) => `  ${EXAMPLES[c]![0]}`);
  return `Usage: partner-sim <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun 'partner-sim help <command>' (or '<command> --help') for a command's options and examples.\n\nExamples:\n${examples.join('\n')}\n`;
}

/**
 * The apps whose credentials the banner may print: those of the fixtures (demo credentials,
 * public anyway), never apps created at run time, whose secrets a restart would otherwise
 * spill into terminal scroll-back and CI logs.
 */
export async function fixtureApps(config: Config, apps: PartnerApp[]): Promise<PartnerApp[]> {
  const listed = (await readFixture<NewApp[]>(config.fixturesDir, 'apps.json')) ?? [];
  const ids = new Set(listed.map((a) => a.client_id));
  return apps.filter((a) => ids.has(a.client_id));
}

/** Where everything is, by name: the one source of both banner forms. */
function bannerUrls(url: string, config: Config, https?: RunningSimulator['https']): Record<string, string> {
  return {
    simulator: url,
    us_base_url: `${url}/developer/api`,
    jp_base_url: `${url}/jp/developer/api`,
    // The opt-in regions (--regions), only when served.
    ...(config.regions.includes('eu') ? { eu_base_url: `${url}/eu/developer/api` } : {}),
    ...(config.regions.includes('sg') ? { sg_base_url: `${url}/sg/developer/api` } : {}),
    storage: config.storageHost ? `https://${config.storageHost}` : `${config.publicUrl ?? url}/storage`,
    control_api: `${url}/__admin`,
    control_api_spec: `${url}/__admin/openapi.yaml`,
    docs: `${url}/docs`,
    dashboard: `${url}/__admin/ui`,
    ...(https ? { https: `${https.url}/developer/api`, ca_cert: https.caCertPath, proxy: https.proxy } : {}),
  };
}

const stateOf = (config: Config): string =>
  config.store !== undefined ? redactUrl(config.store) : config.inMemory ? 'in memory' : config.dataDir;

const seedWarning = (config: Config): string[] =>
  config.seed === undefined
    ? []
    : [
        `WARNING: --seed ${JSON.stringify(config.seed)} makes this instance's secrets guessable (token and URL`,
        '  signing keys, generated credentials and ids): use it for reproducible tests only.',
      ];

/** The start banner for a person at a terminal (exported for its test). */
export function banner(
  url: string,
  config: Config,
  apps: PartnerApp[],
  https?: RunningSimulator['https'],
  recording?: RunningSimulator['recording'],
): string {
  const u = bannerUrls(url, config, https);
  const creds = apps
    .map((a) => `  [${a.region}] client_id=${a.client_id}  secret_key=${a.secret_key}  api_key=${a.api_key}`)
    .join('\n');
  return [
    `partner-sim listening on ${url}`,
    `  US base_url: ${u.us_base_url}`,
    `  JP base_url: ${u.jp_base_url}`,
    ...(u.eu_base_url ? [`  EU base_url: ${u.eu_base_url}`] : []),
    ...(u.sg_base_url ? [`  SG base_url: ${u.sg_base_url}`] : []),
    `  storage:     ${config.storageHost ? `${u.storage} (S3-shaped URLs, through --https)` : u.storage}`,
    `  control API: ${u.control_api}  (spec: ${u.control_api_spec})`,
    `  API docs:    ${u.docs}  (Swagger UI)`,
    `  dashboard:   ${u.dashboard}`,
    ...(https
      ? [
          `  HTTPS:       ${u.https}  (trust ${u.ca_cert})`,
          `  proxy:       HTTPS_PROXY=${u.proxy} serves the live hosts${config.storageHost ? ` and ${config.storageHost}` : ''}, refuses others (docs/any-client.md)`,
        ]
      : []),
    `  state:       ${stateOf(config)}`,
    ...(recording
      ? [
          `RECORDING: partner-API and storage requests are forwarded to ${recording.upstream}`,
          `  and written, secrets redacted, to ${recording.file}`,
        ]
      : []),
    ...seedWarning(config),
    'Demo credentials (fixture apps):',
    creds || '  (no apps in fixtures: create one with POST /__admin/apps)',
    '',
  ].join('\n');
}

/**
 * One log line as pino writes them (level, time, name, msg), so a collector reading the
 * simulator's JSON log reads the banner and the shutdown line too.
 */
export const jsonLine = (msg: string, fields: Record<string, unknown>): string =>
  `${JSON.stringify({ level: 30, time: Date.now(), name: 'partner-sim', msg, ...fields })}\n`;

/** The start banner when stdout is not a terminal (or with --log-format json): one JSON line. */
export function bannerJson(
  url: string,
  config: Config,
  apps: PartnerApp[],
  https?: RunningSimulator['https'],
  recording?: RunningSimulator['recording'],
): string {
  const warning = seedWarning(config).join('').replace(/\s+/g, ' ');
  return jsonLine(`partner-sim listening on ${url}`, {
    urls: bannerUrls(url, config, https),
    state: stateOf(config),
    // Where partner-API traffic goes when it is not answered here (serve --record).
    ...(recording ? { recording: { upstream: recording.upstream, file: recording.file } } : {}),
    ...(warning ? { warning } : {}),
    credentials: apps.map((a) => ({
      region: a.region,
      client_id: a.client_id,
      secret_key: a.secret_key,
      api_key: a.api_key,
    })),
  });
}

async function serve(argv: string[]): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: false,
    options: { help: { type: 'boolean' }, ...serveFlags },
  });
  if (parsed.values.help) {
    process.stdout.write(serveHelp());
    return 0;
  }
  const config = parseConfig(serveValues(parsed.values), process.env);
  // A reader that went away (`partner-sim serve | head -3`) makes writes to stdout fail with
  // EPIPE; unhandled, that error event would end the simulator. Logs are lost, serving is not.
  process.stdout.on('error', () => {});
  const sim = await serveSimulator(config);
  // Readable in a terminal; in a pipe every line of stdout is JSON, as the log is.
  const pretty = wantsPretty(process.stdout, process.env, config.logFormat);
  // Handlers first, banner second: whoever waits for the banner may signal at once, and a
  // SIGTERM before the handler exists would kill the process without flushing state.
  const stopped = new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      process.stdout.write(
        pretty
          ? `partner-sim: ${signal}, flushing state and stopping\n`
          : jsonLine(`partner-sim: ${signal}, flushing state and stopping`, { signal }),
      );
      sim.stop().then(resolve, (e) => {
        process.stderr.write(`partner-sim: error while stopping: ${(e as Error).message}\n`);
        resolve();
      });
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  const apps = await fixtureApps(config, sim.services.apps.list());
  process.stdout.write((pretty ? banner : bannerJson)(sim.url, config, apps, sim.https, sim.recording));
  await stopped;
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === '--version' || cmd === '-v') {
    process.stdout.write(
      `${(JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version}\n`,
    );
    return 0;
  }
  if (cmd === 'help' && rest[0] !== undefined) {
    if (!COMMANDS[rest[0]]) {
      process.stderr.write(unknownCommand(rest[0]));
      return 2;
    }
    process.stdout.write(await commandHelp(rest[0]));
    return 0;
  }
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(mainHelp());
    return cmd ? 0 : 2;
  }
  const command = COMMANDS[cmd];
  if (!command) {
    process.stderr.write(unknownCommand(cmd));
    return 2;
  }
  if (asksHelp(rest)) {
    process.stdout.write(await commandHelp(cmd));
    return 0;
  }
  try {
    return await command.run(rest);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.name === 'ConfigError' || err.code?.startsWith('ERR_PARSE_ARGS')) {
      process.stderr.write(
        `partner-sim ${cmd}: ${err.message}\nRun 'partner-sim ${cmd} --help' for the options.\n`,
      );
      return 2;
    }
    if (err.code === 'FIXTURE_INVALID') {
      process.stderr.write(
        `partner-sim ${cmd}: broken fixture: ${err.message}; fix it or point --fixtures at another folder\n`,
      );
      return 1;
    }
    if (err.code === 'EADDRINUSE') {
      process.stderr.write(
        `partner-sim ${cmd}: port in use (${err.message}); pick another with --port or PORT\n`,
      );
      return 1;
    }
    process.stderr.write(`partner-sim ${cmd}: ${err.message}\n`);
    return 1;
  }
}

// Run only as the entry point, so tests can import main().
const entry = process.argv[1] ? pathToFileURL(realpathSync(process.argv[1])).href : '';
if (import.meta.url === entry) {
  main(process.argv.slice(2)).then((code) => process.exit(code));
}
