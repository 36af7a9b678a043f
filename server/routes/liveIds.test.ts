import { describe, expect, it } from 'vitest';
import { uploadBytes } from '../testing/audioFixtures.js';
import { DEMO_US, userToken } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { externalUrl, submit } from '../testing/transcriptionKit.js';
import { useTestServers } from '../testing/useTestServers.js';

const { start } = useTestServers();

const TASK_ID = /^task_exec_[0-9a-f]{32}$/;
const FILE_ID = /^file_[0-9a-f]{32}$/;

async function ids(s: TestServer): Promise<{ task: string; file: string }> {
  const { user } = await userToken(s.api, DEMO_US, 'ids-user');
  const file = await uploadBytes(s.api, user, Buffer.from('not really audio'), 'mp3');
  const task = await submit(s, { file_url: externalUrl() });
  return { task: task.body.transcription_id, file: file.FileId };
}

describe('identifiers shaped like live', () => {
  it('answers task_exec_<32 hex> transcription ids and file_<32 hex> file ids, drawn from the seed', async () => {
    const a = await ids(await start({ seed: 'ids-seed' }));
    expect(a.task).toMatch(TASK_ID);
    expect(a.file).toMatch(FILE_ID);
    // The injected random source decides them: the same seed and requests give the same ids.
    expect(await ids(await start({ seed: 'ids-seed' }))).toEqual(a);
    const other = await ids(await start({ seed: 'another-seed' }));
    expect(other.task).not.toBe(a.task);
    expect(other.file).not.toBe(a.file);
  });
});
