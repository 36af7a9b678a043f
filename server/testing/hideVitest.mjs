// `node --import <this file> …`: vitest (and its vite chain) cannot be resolved, as in an
// install without the optional peer dependency. With HIDE_VITEST_LOG=<file>, every attempt is
// appended to that file (synchronously: the hooks run on their own thread, whose stderr may
// be lost at exit), so a test sees even an attempt that the code caught.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
const HIDDEN = /^(?:vitest|vite|@vitest\\/[^/]+|rolldown)(?:\\/|$)/;
export async function resolve(specifier, context, next) {
  if (HIDDEN.test(specifier)) {
    if (process.env.HIDE_VITEST_LOG)
      appendFileSync(process.env.HIDE_VITEST_LOG, specifier + ' from ' + context.parentURL + '\\n');
    const e = new Error("Cannot find package '" + specifier + "' (hidden by hideVitest.mjs)");
    e.code = 'ERR_MODULE_NOT_FOUND';
    throw e;
  }
  return next(specifier, context);
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
