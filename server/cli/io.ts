import type { Out } from './progress.js';

/** The streams and environment of a client command (tests pass fakes). */
export interface CommandIo {
  stdout: Out;
  stderr: Out;
  env: Record<string, string | undefined>;
  /** Where relative file names are read from (default: the process's working folder). */
  cwd?: string;
}

export const processIo = (): CommandIo => ({
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});

/** `--target` names a simulator we start ourselves, a URL, or a live region. */
export const TARGET_HELP = `  --target <sim|URL|live>   sim: an in-memory simulator started in this process with the
                            fixtures' demo app (default; needs no settings)
                            URL: a running simulator, e.g. http://127.0.0.1:4010 (demo
                            credentials unless the environment names others)
                            live: the live service in --region (credentials from the
                            environment); us, jp, eu, sg: the same as live --region <it>
  --region <us|jp|eu|sg>    the region (default us): live's host, or a simulator's /jp mount
                            with the JP demo app; eu, sg: live lists them as Coming soon
                            (hosts do not resolve); a simulator serves them with
                            serve --regions (an in-process one makes an app there)
  --base-url <url>          a running simulator at this URL (the same as --target <url>, or
                            with --target url, as contract takes it)`;

export const ENV_HELP = `Environment: PARTNER_CLIENT_ID, PARTNER_SECRET_KEY, PARTNER_API_KEY, PARTNER_USER_ID
(all four required for live; on a URL each overrides the demo value; PARTNER_USER_ID
defaults to cli-user-0001 on a simulator).`;
