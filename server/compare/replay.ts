import { type ResponseShape, shapeOf } from '../../contracts/lib/record.js';
import { type Drift, diffShapes } from '../contract/drift.js';
import type { ControlClient } from '../embed/controlClient.js';
import { isTextual } from '../record/harEntry.js';
import { operationOf } from '../record/operationOf.js';
import type { components } from '../spec/admin-types.js';
import type { AudioBytes } from './audio.js';
import { Carry } from './carry.js';
import { type HarEntry, harHeader, type Recording } from './har.js';
import { ReplayClock } from './replayClock.js';
import { parseJson, type ReplayRequest, RequestBuilder } from './replayRequest.js';

export interface ReplayTarget {
  /** Root of the target, e.g. http://127.0.0.1:4010 */
  root: string;
  control: ControlClient;
  /** The throw-away app the replay authenticates as. */
  app: components['schemas']['PartnerApp'];
}

/** One recorded exchange replayed: both answers' shapes and where they differ. */
export interface ExchangeResult {
  label: string;
  operation: string;
  recorded: ResponseShape;
  actual: ResponseShape;
  drift: Drift[];
  entry: HarEntry;
}

const unquote = (etag: string | undefined | null): string =>
  (etag ?? '').replace(/^W\//, '').replace(/"/g, '');

/** The shape of an answer (as `contract --compare` takes it); bytes count as a non-empty body. */
function shape(
  op: string,
  status: number,
  type: string,
  text: string | undefined,
  size: number,
): ResponseShape {
  const shown = text ?? (size > 0 ? '\u0000' : '');
  const s = shapeOf(op, { status, headers: { 'content-type': type }, text: shown, body: parseJson(text) });
  // JSON has one number type: whether a recorded 0.5 s happened to be 1 s is a value, not a shape.
  for (const [field, t] of Object.entries(s.fields))
    s.fields[field] = [...new Set(t.split('|').map((x) => (x === 'integer' ? 'number' : x)))].join('|');
  return s;
}

/** Headers clients rely on: an ETag given or not, the media type. */
function headerDrift(
  base: Omit<Drift, 'kind' | 'main' | 'compare'>,
  rec: [string | undefined, string],
  act: [string | undefined, string],
): Drift[] {
  const out: Drift[] = [];
  if ((rec[0] === undefined) !== (act[0] === undefined))
    out.push({
      ...base,
      kind: 'header',
      field: 'ETag',
      main: rec[0] === undefined ? '-' : 'present',
      compare: act[0] === undefined ? '-' : 'present',
    });
  const media = (t: string) => t.split(';')[0]!.trim().toLowerCase() || '-';
  if (media(rec[1]) !== media(act[1]))
    out.push({ ...base, kind: 'header', field: 'Content-Type', main: media(rec[1]), compare: media(act[1]) });
  return out;
}

/** A request sent to the target, its answer read whole. */
async function send(req: ReplayRequest) {
  const res = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    redirect: 'manual',
    ...(req.body === undefined ? {} : { body: req.body }),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  const text = isTextual(type) || bytes.length === 0 ? bytes.toString('utf8') : undefined;
  return { res, bytes, type, text };
}

/** The task status a poll answered (`getTranscription`), which the replay waits to see again. */
function polledStatus(op: string, text: string | undefined): string | undefined {
  if (op !== 'getTranscription') return undefined;
  const status = (parseJson(text) as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? status : undefined;
}

/**
 * Replay a recording's exchanges in order against the target, as the throw-away app: values
 * learnt from earlier answers are carried into later requests, the app's credentials replace
 * the recorded ones, and the app's clock follows the recording's own timeline (replayClock.ts).
 */
export async function replay(
  rec: Recording,
  target: ReplayTarget,
  audio: AudioBytes,
  /** Says on stderr what the replay could not do as asked (a clock it cannot drive). */
  note: (message: string) => void = () => {},
): Promise<ExchangeResult[]> {
  const carry = new Carry();
  if (rec.app) carry.seed(rec.app, target.app.client_id);
  const requests = new RequestBuilder(target.root, target.app, carry, audio, rec.entries, rec.app);
  const results: ExchangeResult[] = [];
  const clock = new ReplayClock(target.control, target.app.client_id, note);
  await clock.start();
  for (const [i, entry] of rec.entries.entries()) {
    await clock.before(Date.parse(entry.startedDateTime));
    const req = await requests.build(entry);
    const op =
      entry._operation ??
      operationOf(req.method, new URL(entry.request.url).pathname) ??
      `${req.method} ${new URL(entry.request.url).pathname}`;
    const polled = polledStatus(op, entry.response.content.text);
    const { res, bytes, type, text } = await clock.settle(
      await send(req),
      () => send(req),
      (a) => polled === undefined || polledStatus(op, a.text) === polled,
    );
    const recType =
      entry.response.content.mimeType === 'x-unknown' ? '' : (entry.response.content.mimeType ?? '');
    const recorded = shape(
      op,
      entry.response.status,
      recType,
      entry.response.content.text,
      entry.response.content.size,
    );
    const actual = shape(op, res.status, type, text, bytes.length);
    const label = `#${i + 1}`;
    const drift = diffShapes(recorded, actual, label);
    const recEtag = harHeader(entry.response.headers, 'etag');
    const actEtag = res.headers.get('etag') ?? undefined;
    if (recorded.status === actual.status)
      drift.push(
        ...headerDrift(
          { operation: op, status: recorded.status, scenario: label },
          [recEtag, recType],
          [actEtag, type],
        ),
      );
    results.push({ label, operation: op, recorded, actual, drift, entry });

    carry.learn(parseJson(entry.response.content.text), parseJson(text));
    carry.set(unquote(recEtag), unquote(actEtag));
    const recLocation = harHeader(entry.response.headers, 'location');
    const actLocation = res.headers.get('location');
    if (recLocation && actLocation) carry.set(recLocation, actLocation);
  }
  return results;
}
