import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { startTestServer, type TestServer } from '../testing/testServer.js';
import { nearestPath } from './nearestPath.js';

describe('nearestPath', () => {
  it('names the operation a near path meant, of any surface', () => {
    expect(nearestPath('GET', '/developer/api/open/partner/sdk/bindings')).toBe(
      'GET /developer/api/open/partner/sdk/binding',
    );
    expect(nearestPath('GET', '/jp/developer/api/open/partner/ai/transcription/task_1')).toBe(
      'GET /jp/developer/api/open/partner/ai/transcriptions/{transcription_id}',
    );
    expect(nearestPath('POST', '/open/partner/sdk/bind')).toBe('POST /developer/api/open/partner/sdk/bind');
    expect(nearestPath('GET', '/__admin/fault')).toBe('GET /__admin/faults');
    expect(nearestPath('GET', '/__admin/uii')).toBe('GET /__admin/ui');
  });

  it('says nothing when no path is near, or the path is long', () => {
    expect(nearestPath('GET', '/developer/api/nope')).toBeUndefined();
    expect(nearestPath('GET', '/completely/elsewhere/entirely')).toBeUndefined();
    expect(nearestPath('GET', `/developer/api/${'x'.repeat(400)}`)).toBeUndefined();
  });
});

describe('an unknown path', () => {
  let sim: TestServer;
  beforeAll(async () => {
    sim = await startTestServer();
  });
  afterAll(() => sim.stop());

  it('answers the same 404, naming the closest operation in the message and X-Sim-Warning', async () => {
    const r = await http('GET', `${sim.api}/open/partner/sdk/bindings?type=notepro&sn=1`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      detail: 'NOT_FOUND',
      message:
        'No operation at GET /developer/api/open/partner/sdk/bindings; did you mean GET /developer/api/open/partner/sdk/binding?',
    });
    expect(r.headers.get('x-sim-warning')).toBe('did you mean GET /developer/api/open/partner/sdk/binding?');
    const far = await http('GET', `${sim.api}/nope`);
    expect(far.body.message).toBe('No operation at GET /developer/api/nope');
    expect(far.headers.get('x-sim-warning')).toBeNull();
  });
});
