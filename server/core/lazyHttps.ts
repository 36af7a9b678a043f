import { createRequire } from 'node:module';

/**
 * node:https, loaded on first use. With node:tls under it, it is ~20 ms of a start's CPU
 * (issue 33), and only an https webhook receiver or an https file_url needs it; `serve
 * --https` loads node:tls itself, only then.
 */
export const lazyHttps = (): typeof import('node:https') =>
  createRequire(import.meta.url)('node:https') as typeof import('node:https');
