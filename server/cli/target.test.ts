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
});
