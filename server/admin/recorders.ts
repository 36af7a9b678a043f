import { arrange } from '../domain/arrangements.js';
import { pressRecord, putRecorder } from '../domain/recorderControl.js';
import type { Handlers } from '../http/types.js';
import type { Services } from '../services.js';
import { idPageReply, pageQueryOf } from './paging.js';

const recorderDeps = (s: Services) => ({
  recorders: s.recorders,
  phones: s.phones,
  events: s.deviceEvents,
});

/** Control API over the device side: recorders (arrange a case, recordings, record presses) and phones. */
export const recorderAdminHandlers = {
  listRecorders: async (ctx) =>
    idPageReply(
      ctx,
      await ctx.services.recorders.page(
        pageQueryOf(ctx.query, {
          noApp:
            'recorders are the device side and belong to no app (GET /__admin/devices?client_id= lists the devices bound through an app)',
        }),
      ),
    ),

  getRecorder: async ({ params, services }) => ({
    status: 200,
    body: await services.recorders.get(params.sn),
  }),

  putRecorder: async ({ body, params, services }) => ({
    status: 200,
    body: await putRecorder(recorderDeps(services), params.sn, body),
  }),

  deleteRecorder: async ({ params, services }) => {
    await services.phones.detach(await services.recorders.record(params.sn));
    await services.recorders.remove(params.sn);
    return { status: 204 };
  },

  arrangeRecorder: async ({ body, params, services }) => ({
    status: 200,
    body: await arrange(
      {
        devices: services.devices,
        recorders: services.recorders,
        phones: services.phones,
        random: services.deps.random.fork('arrange'),
        clock: services.deps.clock,
      },
      params.sn,
      body,
    ),
  }),

  addRecording: async ({ body, params, services }) => ({
    status: 201,
    body: await services.recorders.addRecording(params.sn, body),
  }),

  pressRecord: async ({ body, params, services }) => ({
    status: 200,
    body: await pressRecord(recorderDeps(services), params.sn, body),
  }),

  listPhones: async (ctx) => idPageReply(ctx, await ctx.services.phones.page(pageQueryOf(ctx.query))),

  arrangePhone: async ({ body, params, services }) => ({
    status: 200,
    body: await services.phones.arrange(params.phone_id, body),
  }),

  deleteRecorderRecording: async ({ params, services }) => {
    await services.recorders.deleteRecording(params.sn, params.session_id);
    return { status: 204 };
  },
} satisfies Handlers;
