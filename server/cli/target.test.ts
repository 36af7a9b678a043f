import { describe, expect, it } from 'vitest';
import { openTarget, UsageError } from './target.js';

describe('openTarget (the client commands’ --target)', () => {
  it('never shows the user:password a target URL carries', async () => {
    const t = await openTarget('http://ci:s3cret-pass@127.0.0.1:4010/', {});
    expect(t.label).toBe('http://127.0.0.1:4010');
    expect(t.api).toContain('s3cret-pass'); // still used to connect
    await t.stop();
    const bad = openTarget('ftp://ci:s3cret-pass@example.com', {});
    await expect(bad).rejects.toBeInstanceOf(UsageError);
    await expect(bad).rejects.not.toThrow(/s3cret-pass/);
  });

  it('--region jp on a simulator is its /jp mount with the JP demo app', async () => {
    const url = await openTarget('http://127.0.0.1:4010', {}, {}, 'jp');
    expect(url.api).toBe('http://127.0.0.1:4010/jp/developer/api');
    expect(url.app.client_id).toBe('demo-client-jp');
    const sim = await openTarget('sim', {}, {}, 'jp');
    try {
      expect(sim.api).toMatch(/\/jp\/developer\/api$/);
      expect(sim.app.client_id).toBe('demo-client-jp');
      // The in-process simulator answers the JP app on its JP mount.
      const token = await fetch(`${sim.api}/oauth/partner/access-token`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${sim.app.client_id}:${sim.app.secret_key}`).toString('base64')}`,
        },
      });
      expect(token.status).toBe(200);
    } finally {
      await sim.stop();
    }
    const us = await openTarget('http://127.0.0.1:4010', {});
    expect(us.api).toBe('http://127.0.0.1:4010/developer/api');
  });
});
