import { extraOptions } from './options/extras.js';
import type { Option } from './options/kit.js';
import { listeningOptions } from './options/listening.js';
import { recordOptions } from './options/record.js';
import { serviceOptions } from './options/service.js';

/**
 * Every option of `partner-sim serve`: its flag, environment variable, type, default and help.
 * The CLI parser, `--help`, the defaults and the `Config` type are all read off this one list
 * (kept in three modules under server/options/ by what the options are about, in `--help`
 * order); a test holds docs/configuration.md's table to it.
 */
export const options = [...listeningOptions, ...serviceOptions, ...extraOptions, ...recordOptions] as const;

/**
 * Configuration is parsed once (CLI flags over environment over defaults) into this typed
 * object and passed to everything that needs it. Nothing else reads process.env. One field per
 * option, of the type of its default.
 */
export type Config = { -readonly [O in (typeof options)[number] as O['key']]: O['default'] };

/** An option of the list, whatever its field. */
export type OptionSpec = Option<keyof Config, unknown>;

export const defaults = Object.fromEntries(options.map((o) => [o.key, o.default])) as Config;
