import { describe, expect, it } from 'vitest';
import { adminSpec, apiSpec } from '../spec/openapi.js';
import { adminHandlers, apiHandlers } from './index.js';

// Routes are mounted from the documents for the operations that have a handler: an
// operation without one would silently be a 404. This keeps the server complete.
describe('handlers', () => {
  it.each([
    ['openapi.yaml', apiSpec, apiHandlers],
    ['admin.openapi.yaml', adminSpec, adminHandlers],
  ] as const)('every operation of %s has a handler, and every handler an operation', (_name, spec, handlers) => {
    const ops = [...spec().operations.keys()].sort();
    expect(Object.keys(handlers).sort()).toEqual(ops);
  });
});
