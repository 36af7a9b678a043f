import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SimError } from '../core/errors.js';
import { DEVICE_SERVERS, servedSpec } from '../docs/servedSpec.js';
import { credentialsOf } from '../http/authScheme.js';
import type { Handlers } from '../http/types.js';
import { deviceSpec } from '../spec/openapi.js';

/** The bearer token of createPhone (the authenticator checks it is present and well formed). */
function bearerOf(header: string | undefined): string {
  if (!header)
    throw SimError.unauthorized('MISSING_CREDENTIALS', 'Send Authorization: Bearer <user access token>');
  const token = credentialsOf(header, 'Bearer');
  if (token === undefined)
    throw SimError.unauthorized('INVALID_TOKEN', 'Authorization must be "Bearer <token>"');
  return token;
}

/** The device protocol (server/device.openapi.yaml): thin handlers over PhoneService. */
export const deviceHandlers = {
  createPhone: async ({ req, body, region, services }) => ({
    status: 201,
    body: await services.phones.create(bearerOf(req.headers.authorization), region, body ?? {}),
  }),

  getPhone: async ({ params, services }) => ({
    status: 200,
    body: await services.phones.get(params.phone_id),
  }),

  deletePhone: async ({ params, services }) => {
    await services.phones.remove(params.phone_id);
    return { status: 204 };
  },

  startScan: async ({ params, body, services }) => ({
    status: 200,
    body: await services.phones.scan(params.phone_id, body?.window_ms),
  }),

  stopScan: async ({ params, services }) => {
    await services.phones.stopScan(params.phone_id);
    return { status: 204 };
  },

  connectDevice: async ({ params, body, services }) => ({
    status: 202,
    body: await services.phones.connect(params.phone_id, body),
  }),

  disconnectDevice: async ({ params, services }) => ({
    status: 200,
    body: await services.phones.disconnect(params.phone_id),
  }),

  depairDevice: async ({ params, body, services }) => ({
    status: 200,
    body: await services.phones.depair(params.phone_id, body?.clear ?? true),
  }),

  listRecordings: async ({ params, query, services }) => ({
    status: 200,
    body: await services.phoneRecordings.list(params.phone_id, query.start_session_id ?? 0),
  }),

  deleteRecording: async ({ params, services }) => {
    await services.phoneRecordings.remove(params.phone_id, params.session_id);
    return { status: 204 };
  },

  exportRecording: async ({ params, query, res, services }) => {
    const out = await services.phoneRecordings.export(
      params.phone_id,
      params.session_id,
      query.format ?? 'mp3',
      query.channels ?? 1,
    );
    res.status(200).set({
      'content-type': out.contentType,
      'content-length': String(out.size),
      'x-sim-duration': String(out.duration),
    });
    if (Buffer.isBuffer(out.body)) res.end(out.body);
    else await pipeline(out.body as Readable, res);
    return undefined;
  },

  pollEvents: async ({ params, query, services }) => ({
    status: 200,
    body: await services.phones.poll(params.phone_id, query.after ?? 0, query.limit ?? 100),
  }),

  getDeviceSpec: ({ res, publicUrl }) => {
    res.type('text/yaml').send(servedSpec(deviceSpec(), publicUrl, DEVICE_SERVERS));
    return undefined;
  },
} satisfies Handlers;
