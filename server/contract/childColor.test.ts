import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { runContract } from './command.js';

/** A vitest child that exits at once, keeping the environment it was given. */
function fakeSpawn(seen: NodeJS.ProcessEnv[]) {
  return (_c: string, _a: readonly string[], options: SpawnOptions): ChildProcess => {
    seen.push(options.env!);
    const child = Object.assign(new EventEmitter(), {
      stdout: new EventEmitter(),
      stderr: new EventEmitter(),
    });
    setImmediate(() => child.emit('close', 0, null));
    return child as unknown as ChildProcess;
  };
}

describe('contract output in a pipe', () => {
  it('asks its vitest child for no colour when CI sets CI=true, unless FORCE_COLOR asks for it', async () => {
    const seen: NodeJS.ProcessEnv[] = [];
    const quiet = { onOutput: () => {}, spawn: fakeSpawn(seen) };
    expect(await runContract([], { ...quiet, env: { CI: 'true' } })).toBe(0);
    expect(await runContract([], { ...quiet, env: { CI: 'true', FORCE_COLOR: '1' } })).toBe(0);
    expect(seen[0]!.NO_COLOR).toBe('1');
    expect(seen[1]!.NO_COLOR).toBeUndefined();
  });
});
