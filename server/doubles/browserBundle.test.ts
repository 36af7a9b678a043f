import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../core/root.js';

// The doubles run in a browser and in a React Native JS engine: bundling them for the
// browser fails on any Node-only import (node:*, a Node builtin), anywhere they reach.

describe.each(['reactNative', 'capacitor', 'capacitorNative'])('%s double', (name) => {
  it('bundles for the browser with no Node builtins', async () => {
    const out = await build({
      entryPoints: [fromRoot(`server/doubles/${name}/${name}.ts`)],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
    });
    const code = out.outputFiles[0]!.text;
    expect(code).toContain('PlaudSdk');
    expect(code).not.toMatch(/from\s*["'](node:|fs|crypto|http)["']/);
  });
});
