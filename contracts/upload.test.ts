import { expect } from 'vitest';
import { bearer, partnerToken, userToken } from './lib/flows.js';
import { call, errorCode } from './lib/request.js';
import { contractSuite, scenario } from './lib/suite.js';
import {
  md5hex,
  multipartEtag,
  putPart,
  sliceParts,
  someBytes,
  startUpload,
  tamper,
  uploadFile,
  withoutParam,
} from './lib/upload.js';
import type { Target } from './target/types.js';

const s3Code = (text: string) => /<Code>([^<]*)<\/Code>/.exec(text)?.[1];

const complete = (t: Target, user: string, json: Record<string, unknown>, expectStatus: number) =>
  call(t, { op: 'completeUpload', headers: bearer(user), json, expect: expectStatus });

contractSuite('upload', () => {
  scenario(
    'upload round trip: presign, PUT each part (ETag = quoted md5), complete, download the same bytes',
    { timeout: 60_000 },
    async (t) => {
      const user = await userToken(t);
      // Just over 5 MiB: two parts with the documented ChunkSize, so part cutting is exercised.
      const bytes = someBytes(5 * 1024 * 1024 + 1024);
      const { session, parts, etags, file } = await uploadFile(t, user, bytes);
      expect(session.Parts.map((p) => p.PartNumber)).toEqual(parts.map((_, i) => i + 1));
      expect(session.Parts.length).toBe(Math.ceil(bytes.length / session.ChunkSize));
      expect(etags).toEqual(parts.map((p) => `"${md5hex(p)}"`));
      expect(file.body).toMatchObject({ FileId: session.FileId, FileType: 'mp3', FileMd5: md5hex(bytes) });
      const got = await call(t, { op: 'downloadFile', url: file.body.DownloadUrl, expect: 200 });
      expect(got.buffer.equals(bytes)).toBe(true);
      if (parts.length > 1) expect(got.headers.etag).toBe(multipartEtag(parts));
    },
  );

  scenario(
    'downloadFile: a Range answers 206 with Content-Range; an unsatisfiable one 416 InvalidRange',
    {},
    async (t) => {
      const bytes = someBytes(1000);
      const { file } = await uploadFile(t, await userToken(t), bytes);
      const url = file.body.DownloadUrl as string;
      const part = await call(t, { op: 'downloadFile', url, headers: { range: 'bytes=0-99' }, expect: 206 });
      expect(part.headers['content-range']).toBe('bytes 0-99/1000');
      expect(part.buffer.equals(bytes.subarray(0, 100))).toBe(true);
      const bad = await call(t, {
        op: 'downloadFile',
        url,
        headers: { range: 'bytes=5000-6000' },
        expect: 416,
      });
      expect(s3Code(bad.text)).toBe('InvalidRange');
    },
  );

  scenario(
    'uploadPart: a tampered signature is 403 SignatureDoesNotMatch, a missing one 400 AuthorizationQueryParametersError',
    {},
    async (t) => {
      const session = await startUpload(t, await userToken(t), 100);
      const url = session.Parts[0]!.PresignedUrl;
      expect(s3Code((await putPart(t, tamper(url), someBytes(100), 403)).text)).toBe('SignatureDoesNotMatch');
      const missing = await putPart(t, withoutParam(url, 'X-Amz-Signature'), someBytes(100), 400);
      expect(s3Code(missing.text)).toBe('AuthorizationQueryParametersError');
    },
  );

  scenario('uploadPart: after completion the upload is gone (404 NoSuchUpload)', {}, async (t) => {
    const { session } = await uploadFile(t, await userToken(t), someBytes(100));
    const r = await putPart(t, session.Parts[0]!.PresignedUrl, someBytes(100), 404);
    expect(s3Code(r.text)).toBe('NoSuchUpload');
  });

  scenario('uploadPart: an expired presigned URL is 403 AccessDenied', { needs: ['control'] }, async (t) => {
    const session = await startUpload(t, await userToken(t), 100);
    const url = session.Parts[0]!.PresignedUrl;
    const expires = Number(new URL(url).searchParams.get('X-Amz-Expires') ?? 3600);
    await t.control!.advanceClock((expires + 60) * 1000);
    const r = await putPart(t, url, someBytes(100), 403);
    expect(s3Code(r.text)).toBe('AccessDenied');
  });

  scenario(
    'completeUpload: wrong file_md5 400 FILE_MD5_NOT_MATCH, a part not uploaded 400 InvalidPart, other filetype 400 FILE_TYPE_INVALID',
    {},
    async (t) => {
      const user = await userToken(t);
      const bytes = someBytes(300);
      const session = await startUpload(t, user, bytes.length);
      const [part] = sliceParts(bytes, session.ChunkSize);
      const etag = String((await putPart(t, session.Parts[0]!.PresignedUrl, part!)).headers.etag);
      const base = { file_id: session.FileId, upload_id: session.UploadId, filetype: 'mp3' };
      const md5 = await complete(
        t,
        user,
        { ...base, part_list: [{ PartNumber: 1, ETag: etag }], file_md5: '0'.repeat(32) },
        400,
      );
      expect(errorCode(md5)).toBe('FILE_MD5_NOT_MATCH');
      const missing = await complete(
        t,
        user,
        {
          ...base,
          part_list: [
            { PartNumber: 1, ETag: etag },
            { PartNumber: 2, ETag: etag },
          ],
        },
        400,
      );
      expect(errorCode(missing)).toBe('InvalidPart');
      const type = await complete(
        t,
        user,
        { ...base, filetype: 'wav', part_list: [{ PartNumber: 1, ETag: etag }] },
        400,
      );
      expect(errorCode(type)).toBe('FILE_TYPE_INVALID');
      // ETags are accepted without their quotes too (live notes).
      const ok = await complete(
        t,
        user,
        { ...base, part_list: [{ PartNumber: 1, ETag: etag.replaceAll('"', '') }] },
        200,
      );
      expect(ok.body.FileMd5).toBe(md5hex(bytes));
    },
  );

  scenario('completeUpload: an unknown upload is 404 NoSuchUpload', {}, async (t) => {
    const r = await complete(
      t,
      await userToken(t),
      {
        file_id: t.uniqueId('f'),
        upload_id: t.uniqueId('u'),
        filetype: 'mp3',
        part_list: [{ PartNumber: 1, ETag: `"${'0'.repeat(32)}"` }],
      },
      404,
    );
    expect(errorCode(r)).toBe('NoSuchUpload');
  });

  scenario(
    'generatePresignedUrls: bad filesize and filetype are one 422 naming both; no token 401; partner token 403',
    {},
    async (t) => {
      const user = await userToken(t);
      const r = await call(t, {
        op: 'generatePresignedUrls',
        headers: bearer(user),
        json: { filesize: 0, filetype: 7 },
        expect: 422,
      });
      const locs = r.body.detail.map((d: { loc: string[] }) => d.loc.join('.'));
      expect(locs).toEqual(expect.arrayContaining(['body.filesize', 'body.filetype']));
      await call(t, { op: 'generatePresignedUrls', json: { filesize: 10, filetype: 'mp3' }, expect: 401 });
      const wrong = await call(t, {
        op: 'generatePresignedUrls',
        headers: bearer(await partnerToken(t)),
        json: { filesize: 10, filetype: 'mp3' },
        expect: 403,
      });
      expect(errorCode(wrong)).toBe('WRONG_TOKEN_KIND');
    },
  );

  scenario(
    'generatePresignedUrls: filetype mp3 and opus accepted; wav (or anything else) 400 FILE_TYPE_INVALID',
    {},
    async (t) => {
      const user = await userToken(t);
      for (const filetype of ['mp3', 'opus']) {
        await call(t, {
          op: 'generatePresignedUrls',
          headers: bearer(user),
          json: { filesize: 10, filetype },
          expect: 200,
        });
      }
      for (const filetype of ['wav', 'exe']) {
        const r = await call(t, {
          op: 'generatePresignedUrls',
          headers: bearer(user),
          json: { filesize: 10, filetype },
          expect: 400,
        });
        expect(errorCode(r)).toBe('FILE_TYPE_INVALID');
      }
    },
  );

  scenario(
    'downloadFile: a tampered DownloadUrl is 403 SignatureDoesNotMatch; an expired one 403 AccessDenied',
    { needs: ['control'] },
    async (t) => {
      const { file } = await uploadFile(t, await userToken(t), someBytes(100));
      const url = file.body.DownloadUrl as string;
      expect(s3Code((await call(t, { op: 'downloadFile', url: tamper(url), expect: 403 })).text)).toBe(
        'SignatureDoesNotMatch',
      );
      const expires = Number(new URL(url).searchParams.get('X-Amz-Expires') ?? 86400);
      await t.control!.advanceClock((expires + 60) * 1000);
      expect(s3Code((await call(t, { op: 'downloadFile', url, expect: 403 })).text)).toBe('AccessDenied');
    },
  );

  scenario(
    'headFile: HEAD of a DownloadUrl gives the size, ETag and Accept-Ranges without a body',
    {},
    async (t) => {
      const bytes = someBytes(777);
      const { file } = await uploadFile(t, await userToken(t), bytes);
      const r = await call(t, { op: 'headFile', url: file.body.DownloadUrl, expect: 200 });
      expect(r.headers['content-length']).toBe('777');
      expect(r.text).toBe('');
    },
  );

  scenario('uploadPartPreflight: the storage host answers CORS preflight and exposes ETag', {}, async (t) => {
    const session = await startUpload(t, await userToken(t), 100);
    const r = await call(t, {
      op: 'uploadPartPreflight',
      url: session.Parts[0]!.PresignedUrl,
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'PUT' },
      expect: 204,
    });
    expect(String(r.headers['access-control-allow-methods'])).toContain('PUT');
  });
});
