import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { awaitSetupState, createSetupState } from './setupState.js';

describe('the state a starting service reports to the test files', () => {
  it('hands a waiting reader the ready value, keeps the first report, and is removed', async () => {
    const state = await createSetupState('state-test');
    const read = awaitSetupState(state.path, 'the service');
    await state.ready('ws://127.0.0.1:1/abc');
    await state.failed('too late: a state is written once');
    await expect(read).resolves.toBe('ws://127.0.0.1:1/abc');
    await expect(awaitSetupState(state.path, 'the service')).resolves.toBe('ws://127.0.0.1:1/abc');
    await state.remove();
    expect(existsSync(dirname(state.path))).toBe(false);
  });

  it('names the service and its reason when it failed, and gives up after the timeout', async () => {
    const failed = await createSetupState('state-test');
    await failed.failed('exit 1: no binaries');
    await expect(awaitSetupState(failed.path, 'the cluster')).rejects.toThrow(
      'the cluster did not start (exit 1: no binaries)',
    );
    const silent = await createSetupState('state-test');
    await expect(awaitSetupState(silent.path, 'the browser', 200)).rejects.toThrow(
      'the browser did not start within 0.2 s',
    );
    await Promise.all([failed.remove(), silent.remove()]);
  });
});
