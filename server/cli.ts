#!/usr/bin/env node
import { readFileSync, realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from './cli/parseArgs.js';
import { serveFlags } from './cli/serveFlags.js';
import { type Config, defaults, options, parseConfig } from './config.js';
import { fromRoot } from './core/root.js';
import type { NewApp, PartnerApp } from './domain/apps.js';
import { type RunningSimulator, serveSimulator } from './simulator.js';
import { readFixture } from './spec/fixtures.js';
import { redactUrl } from './store/postgres/url.js';

// The client commands are loaded when run: `serve` starts without their ~30 modules.
const COMMANDS: Record<string, { summary: string; run: (argv: string[]) => Promise<number> }> = {
  serve: { summary: 'run the simulator (partner API, storage host, control API)', run: serve },
  contract: {
    summary: 'run the contract suite against sim, a URL or live (--help)',
    run: async (a) => (await import('./contract/command.js')).runContract(a),
  },
  transcribe: {
    summary: 'upload an audio file and print its transcript (--help)',
    run: async (a) => (await import('./cli/transcribe.js')).runTranscribe(a),
  },
  binding: {
    summary: "show a device's binding, history and recovery verdict (--help)",
    run: async (a) => (await import('./cli/binding.js')).runBinding(a),
  },
  ca: {
    summary: 'print the local CA of serve --https and how to trust it (--help)',
    run: async (a) => (await import('./cli/ca.js')).runCa(a),
  },
  health: {
    summary: "check a running simulator's health as it listens (the image's HEALTHCHECK; --help)",
    run: async (a) => (await import('./cli/health.js')).runHealth(a),
  },
};

function mainHelp(): string {
  const lines = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(10)} ${c.summary}`);
  return `Usage: partner-sim <command> [options]\n\nCommands:\n${lines.join('\n')}\n\nRun 'partner-sim <command> --help' for a command's options.\n`;
}

function serveHelp(): string {
  const rows = options.map((o) => {
    const flag = `--${o.flag}${o.kind === 'bool' ? '' : ' <value>'}`;
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
  });
  return `Usage: partner-sim serve [options]\n\nRuns the simulator. Flags win over environment variables, which win over defaults.\n\nOptions:\n${rows.join('\n')}\n  ${'--help'.padEnd(30)} show this help\n`;
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

/** The start banner (exported for its test). */
export function banner(
  url: string,
  config: Config,
  apps: PartnerApp[],
  https?: RunningSimulator['https'],
): string {
  const creds = apps
    .map((a) => `  [${a.region}] client_id=${a.client_id}  secret_key=${a.secret_key}  api_key=${a.api_key}`)
    .join('\n');
  const store =
    config.store !== undefined ? redactUrl(config.store) : config.inMemory ? 'in memory' : config.dataDir;
  return [
    `partner-sim listening on ${url}`,
    `  US base_url: ${url}/developer/api`,
    `  JP base_url: ${url}/jp/developer/api`,
    `  storage:     ${config.storageHost ? `https://${config.storageHost} (S3-shaped URLs, through --https)` : `${config.publicUrl ?? url}/storage`}`,
    `  control API: ${url}/__admin  (spec: ${url}/__admin/openapi.yaml)`,
    `  API docs:    ${url}/docs  (Swagger UI)`,
    `  dashboard:   ${url}/__admin/ui`,
    ...(https
      ? [
          `  HTTPS:       ${https.url}/developer/api  (trust ${https.caCertPath})`,
          `  proxy:       HTTPS_PROXY=${https.proxy} serves the live hosts${config.storageHost ? ` and ${config.storageHost}` : ''}, refuses others (docs/any-client.md)`,
        ]
      : []),
    `  state:       ${store}`,
    ...(config.seed === undefined
      ? []
      : [
          `WARNING: --seed ${JSON.stringify(config.seed)} makes this instance's secrets guessable (token and URL`,
          '  signing keys, generated credentials and ids): use it for reproducible tests only.',
        ]),
    'Demo credentials (fixture apps):',
    creds || '  (no apps in fixtures: create one with POST /__admin/apps)',
    '',
  ].join('\n');
}

async function serve(argv: string[]): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: false,
    options: { help: { type: 'boolean', short: 'h' }, ...serveFlags },
  });
  if (parsed.values.help) {
    process.stdout.write(serveHelp());
    return 0;
  }
  const config = parseConfig(parsed.values as Record<string, string | boolean>, process.env);
  // A reader that went away (`partner-sim serve | head -3`) makes writes to stdout fail with
  // EPIPE; unhandled, that error event would end the simulator. Logs are lost, serving is not.
  process.stdout.on('error', () => {});
  const sim = await serveSimulator(config);
  // Handlers first, banner second: whoever waits for the banner may signal at once, and a
  // SIGTERM before the handler exists would kill the process without flushing state.
  const stopped = new Promise<void>((resolve) => {
    const shutdown = (signal: string) => {
      process.stdout.write(`partner-sim: ${signal}, flushing state and stopping\n`);
      sim.stop().then(resolve, (e) => {
        process.stderr.write(`partner-sim: error while stopping: ${(e as Error).message}\n`);
        resolve();
      });
    };
    process.once('SIGTERM', () => shutdown('SIGTERM'));
    process.once('SIGINT', () => shutdown('SIGINT'));
  });
  process.stdout.write(
    banner(sim.url, config, await fixtureApps(config, sim.services.apps.list()), sim.https),
  );
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
  if (!cmd || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    process.stdout.write(mainHelp());
    return cmd ? 0 : 2;
  }
  const command = COMMANDS[cmd];
  if (!command) {
    process.stderr.write(`partner-sim: unknown command '${cmd}'\n\n${mainHelp()}`);
    return 2;
  }
  if (cmd === 'serve' && rest.some((a) => a === '--help' || a === '-h')) {
    process.stdout.write(serveHelp());
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
