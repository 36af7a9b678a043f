import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../core/addressGuard.js';
import { readAudio } from '../testing/audioFixtures.js';
import { APP, setup, stub, useSpeechStub, WAV, words } from '../testing/engineKit.js';
import { STUB_SEGMENTS } from '../testing/speechStub.js';
import type { SpecResult } from './model.js';

// Audio at a URL that is not the simulator's own storage, fetched only when allowed.

useSpeechStub();

/** A web server elsewhere (on 127.0.0.1) serving the WAV fixture, counting its GETs. */
let web: Server;
let webUrl = '';
let webHits = 0;
beforeAll(async () => {
  const wav = await readAudio(WAV);
  web = createServer((req, res) => {
    webHits++;
    if (req.url === '/hello.wav') res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav);
    else if (req.url === '/moved.wav') res.writeHead(302, { location: '/hello.wav' }).end();
    else res.writeHead(404).end('no');
  }).listen(0, '127.0.0.1');
  await once(web, 'listening');
  webUrl = `http://127.0.0.1:${(web.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => web.close(r));
});

describe('external audio (--fetch-external-audio)', () => {
  const fetching = { fetchExternalAudio: true, fetchAllowPrivate: true, transcriber: undefined };

  it('is off by default: the URL is never fetched, the duration is the stand-in', async () => {
    const { svc, settled, advance } = await setup({ transcriber: undefined });
    webHits = 0;
    const id = (await svc.submit(APP, { file_url: `${webUrl}/hello.wav` })).transcription_id;
    advance(200_000);
    const data = (await settled(id)).data as SpecResult;
    expect(data.duration).toBeGreaterThanOrEqual(20);
    expect(webHits).toBe(0);
  });

  it("fetches it for the real duration, ground truth by MD5 and the engine's words", async () => {
    const { svc, settled, advance, transcripts } = await setup(fetching);
    const id = (await svc.submit(APP, { file_url: `${webUrl}/moved.wav` })).transcription_id;
    advance(5000);
    const data = (await settled(id)).data as SpecResult;
    expect(data.duration).toBeCloseTo(WAV.duration, 2);
    // The same bytes with a transcript attached to their MD5: that transcript.
    const { createHash } = await import('node:crypto');
    const md5 = createHash('md5')
      .update(await readAudio(WAV))
      .digest('hex');
    transcripts.set(md5, {
      language: 'en-US',
      segments: [{ start: 0, end: 2, text: 'Known words.', speaker: 'A' }],
    });
    expect(words((await svc.get(APP, id)).data as SpecResult)).toEqual(['Known words.']);
    // With an engine: its words.
    const engine = await setup({ ...fetching, transcriber: stub.url });
    const heard = (await engine.svc.submit(APP, { file_url: `${webUrl}/hello.wav` })).transcription_id;
    engine.advance(5000);
    expect(words((await engine.settled(heard)).data as SpecResult)).toEqual(
      STUB_SEGMENTS.map((s) => s.text.trim()),
    );
    expect(stub.calls).toMatchObject([{ fileName: 'audio.wav', fileSize: (await readAudio(WAV)).length }]);
  });

  it('fails as live would when the fetch fails', async () => {
    const { svc, settled, advance } = await setup(fetching);
    const id = (await svc.submit(APP, { file_url: `${webUrl}/gone.mp3` })).transcription_id;
    advance(5000);
    expect(await settled(id)).toMatchObject({
      status: 'FAILURE',
      message: 'The audio file could not be downloaded: the server answered HTTP 404',
    });
  });

  it('refuses private and loopback addresses unless allowed, by name or by number', async () => {
    const { svc, settled, advance } = await setup({ ...fetching, fetchAllowPrivate: false });
    webHits = 0;
    const byNumber = (await svc.submit(APP, { file_url: `${webUrl}/hello.wav` })).transcription_id;
    const byName = (
      await svc.submit(APP, { file_url: `${webUrl.replace('127.0.0.1', 'localhost')}/hello.wav` })
    ).transcription_id;
    advance(5000);
    expect((await settled(byNumber)).message).toMatch(
      /^The audio file could not be downloaded: 127\.0\.0\.1 is a private address/,
    );
    expect((await settled(byName)).message).toMatch(
      /^The audio file could not be downloaded: localhost resolves to .*private address/,
    );
    expect(webHits).toBe(0);
  });

  it('knows which addresses are private', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '0.0.0.0',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8'])
      expect(isPrivateAddress(a), a).toBe(false);
  });
});
