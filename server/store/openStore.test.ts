import { describe, expect, it } from 'vitest';
import { missingDriver } from './openStore.js';

describe('the optional PostgreSQL driver', () => {
  it('turns a missing pg package into a settings error saying how to add it', () => {
    const missing = Object.assign(new Error("Cannot find package 'pg' imported from /x/pool.js"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const e = missingDriver(missing);
    expect(e.name).toBe('ConfigError');
    expect(e.message).toContain('npm install pg');
  });

  it('leaves any other failure as it was', () => {
    const other = Object.assign(new Error("Cannot find module './x.js'"), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(missingDriver(other)).toBe(other);
    const boom = new Error('boom');
    expect(missingDriver(boom)).toBe(boom);
  });
});
