import { describe, expect, it } from 'vitest';
import { DEMO_US, http } from '../testing/http.js';
import type { TestServer } from '../testing/testServer.js';
import { externalUrl, poll, submit } from '../testing/transcriptionKit.js';
import { useTestServers } from '../testing/useTestServers.js';

const { start } = useTestServers();

const UNKNOWN = {
  foo: 1,
  transcribe: { language: 'en-US', bar: true },
  vad: { decode_silence: false, baz: 'x' },
};
const WARNING = 'unknown params ignored: params.foo, params.transcribe.bar, params.vad.baz';

// biome-ignore lint/suspicious/noExplicitAny: journal entries are read as JSON
async function lastSubmit(s: TestServer): Promise<any> {
  const r = await http('GET', `${s.admin}/requests?operation=createTranscription&limit=1`);
  expect(r.status).toBe(200);
  return r.body[0];
}

// biome-ignore lint/suspicious/noExplicitAny: FastAPI-style issues read as JSON
const locs = (body: any): string[] => body.detail.map((i: { loc: string[] }) => i.loc.join('.'));

describe('transcription params as live takes them', () => {
  it('accepts transcribe.detection_level and hotwords, typed', async () => {
    const s = await start({ transcriptionDelay: 0 });
    for (const detection_level of ['segment', 'chapter']) {
      const r = await submit(s, {
        file_url: externalUrl(),
        params: { transcribe: { detection_level }, hotwords: 'partner-sim,Plaud,NotePin' },
      });
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('x-sim-warning')).toBeNull();
      expect((await poll(s, r.body.transcription_id)).body.status).toBe('SUCCESS');
    }
    const bad = await submit(s, {
      file_url: externalUrl(),
      params: { transcribe: { detection_level: 'word' }, hotwords: ['a', 'b'] },
    });
    expect(bad.status).toBe(422);
    expect(locs(bad.body).sort()).toEqual(['body.params.hotwords', 'body.params.transcribe.detection_level']);
  });

  it('ignores unknown params at any level by default, naming them in X-Sim-Warning and the journal', async () => {
    const s = await start({ transcriptionDelay: 0 });
    const url = externalUrl();
    const r = await submit(s, { file_url: url, params: UNKNOWN });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('x-sim-warning')).toBe(WARNING);
    expect(await lastSubmit(s)).toMatchObject({ status: 200, warnings: [WARNING] });
    // Ignored means ignored: the known params decide the result, exactly as without the extras.
    const plain = await submit(s, { file_url: url, params: { transcribe: { language: 'en-US' } } });
    expect(plain.headers.get('x-sim-warning')).toBeNull();
    expect((await lastSubmit(s)).warnings).toBeUndefined();
    const [a, b] = await Promise.all([
      poll(s, r.body.transcription_id),
      poll(s, plain.body.transcription_id),
    ]);
    expect(a.body.status).toBe('SUCCESS');
    expect(a.body.data.language).toBe('en-US');
    expect(a.body.data).toEqual(b.body.data);
  });

  it('with --strict-params refuses unknown params with 422 naming each one', async () => {
    const s = await start({ strictParams: true });
    const r = await submit(s, { file_url: externalUrl(), params: UNKNOWN });
    expect(r.status).toBe(422);
    expect(r.body.detail).toEqual([
      {
        loc: ['body', 'params', 'foo'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: 1,
      },
      {
        loc: ['body', 'params', 'transcribe', 'bar'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: true,
      },
      {
        loc: ['body', 'params', 'vad', 'baz'],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: 'x',
      },
    ]);
    expect((await lastSubmit(s)).status).toBe(422);
    // Known params, including the live ones, still pass.
    const ok = await submit(s, {
      file_url: externalUrl(),
      params: { transcribe: { language: 'auto', detection_level: 'chapter' }, hotwords: 'x' },
    });
    expect([ok.status, ok.headers.get('x-sim-warning')]).toEqual([200, null]);
  });

  it('refuses them for an app with strict_params, while other apps of the server stay lenient', async () => {
    const s = await start();
    const made = await http('POST', `${s.admin}/apps`, { json: { strict_params: true } });
    expect(made.status).toBe(201);
    expect(made.body.strict_params).toBe(true);
    const strictApp = made.body as typeof DEMO_US;
    const refused = await submit(s, { file_url: externalUrl(), params: { foo: 1 } }, strictApp);
    expect(refused.status).toBe(422);
    expect(locs(refused.body)).toEqual(['body.params.foo']);
    const lenient = await submit(s, { file_url: externalUrl(), params: { foo: 1 } }, DEMO_US);
    expect([lenient.status, lenient.headers.get('x-sim-warning')]).toEqual([
      200,
      'unknown params ignored: params.foo',
    ]);
    const apps = await http('GET', `${s.admin}/apps`);
    expect(
      apps.body.find((a: { client_id: string }) => a.client_id === DEMO_US.client_id).strict_params,
    ).toBe(false);
  });

  it('keeps the warning a valid, bounded header whatever the field names are', async () => {
    const s = await start();
    const params: Record<string, number> = { 'line\nbreak': 1, 'caf\u00e9': 2, ['x'.repeat(200)]: 3 };
    for (let i = 0; i < 30; i++) params[`k${i}`] = i;
    const r = await submit(s, { file_url: externalUrl(), params });
    expect(r.status, r.text).toBe(200);
    const warning = r.headers.get('x-sim-warning')!;
    expect(warning).toMatch(
      /^unknown params ignored: params\.line\\u000abreak, params\.caf\\u00e9, params\.x{64}\.\.\., /,
    );
    expect(warning).toMatch(/ and 13 more$/);
    expect(warning.length).toBeLessThan(1000);
  });
});
