import { parseArgs as nodeParseArgs, type ParseArgsConfig } from 'node:util';
import { nearestName } from '../core/nearest.js';

/** Short flags people reach for, given to every command that has the long option. */
export const SHORT: Record<string, string> = { help: 'h', port: 'p' };

/** A usage mistake, with the code callers already report as one (exit 2). */
function usage(message: string): Error {
  return Object.assign(new Error(message), { code: 'ERR_PARSE_ARGS_USAGE' });
}

/** Our words for node:util's messages, which tell a shell user to "place it after a '--'". */
function reword(err: Error & { code?: string }, known: string[]): void {
  const m = err.message;
  const named = /'([^']*)'/.exec(m)?.[1] ?? '';
  const flag = /--[\w-]+/.exec(m)?.[0] ?? named;
  if (err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const hint = named.startsWith('--') ? nearestName(named.slice(2).split('=')[0]!, known) : undefined;
    err.message = `unknown option '${named}'${hint === undefined ? '' : `; did you mean --${hint}?`}`;
  } else if (err.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    err.message = `unexpected argument '${named}': this command takes options only`;
  } else if (/argument missing/.test(m)) {
    err.message = `${flag} needs a value`;
  } else if (/ambiguous/.test(m)) {
    err.message = `${flag} needs a value, and the next argument is an option (for a value starting with '-', write ${flag}=-…)`;
  } else if (/does not take an argument/.test(m)) {
    err.message = `${flag} takes no value`;
  }
}

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * node:util's parseArgs with what every command of the CLI shares, so a new command gets it by
 * declaring its long options: `-h` for --help and `-p` for --port; `--base-url <url>` on a
 * command that takes `--target` (the same as `--target <url>`, or with `--target url`); and
 * errors in our words, an unknown option naming the one probably meant ("did you mean
 * --port?"). Errors keep an ERR_PARSE_ARGS code, so callers report them as usage errors.
 */
export function parseArgs<T extends ParseArgsConfig>(config: T): ReturnType<typeof nodeParseArgs<T>> {
  const options: NonNullable<ParseArgsConfig['options']> = { help: { type: 'boolean' }, ...config.options };
  const taken = new Set(Object.values(options).map((o) => o.short));
  for (const [name, short] of Object.entries(SHORT)) {
    const o = options[name];
    if (o && o.short === undefined && !taken.has(short)) options[name] = { ...o, short };
  }
  // --target's default applies only when neither --target nor --base-url is given.
  const target = options.target;
  const baseUrl = target !== undefined && options['base-url'] === undefined;
  if (baseUrl) {
    options['base-url'] = { type: 'string' };
    const { default: _, ...rest } = target;
    options.target = rest;
  }
  let parsed: ReturnType<typeof nodeParseArgs<T>>;
  try {
    parsed = nodeParseArgs({ ...config, options } as T);
  } catch (e) {
    const err = e as Error & { code?: string };
    if (err.code?.startsWith('ERR_PARSE_ARGS')) reword(err, Object.keys(options));
    throw err;
  }
  if (baseUrl) {
    const values = parsed.values as Values;
    const url = values['base-url'] as string | undefined;
    const given = values.target as string | undefined;
    delete values['base-url'];
    if (url !== undefined && given !== undefined && given !== 'url' && given !== url)
      throw usage(`--base-url ${url} and --target ${given} name two targets: give one`);
    if (url === undefined && given === 'url') throw usage('--target url needs --base-url <url>');
    const chosen = url ?? given ?? target.default;
    if (chosen === undefined) delete values.target;
    else values.target = chosen as string;
  }
  return parsed;
}
