import type { Config } from '../config.js';
import type { PartnerApp } from '../domain/apps.js';
import type { EngineSettings } from './engineWork.js';
import type { ResultShape } from './model.js';

type Settings = Pick<
  Config,
  'transcriber' | 'transcriberModel' | 'transcriberTimeoutMs' | 'transcriberDiarization' | 'resultShape'
>;

/** The app's own `transcriber` when it has one (`none`: no engine), else --transcriber. */
export function engineFor(config: Settings, app: PartnerApp): EngineSettings | undefined {
  const url = app.transcriber ?? config.transcriber;
  if (url === undefined || url === 'none') return undefined;
  return {
    url,
    model: config.transcriberModel,
    timeoutMs: config.transcriberTimeoutMs,
    ...(config.transcriberDiarization ? { diarizeUrl: config.transcriberDiarization } : {}),
  };
}

/** The app's own switch when it has one, else --result-shape (default `both`). */
export function shapeFor(config: Settings, app: PartnerApp): ResultShape {
  return app.result_shape ?? config.resultShape;
}
