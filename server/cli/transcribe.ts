import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { PartnerClient } from '../client/partnerClient.js';
import { readTranscript, type Transcript } from '../client/transcription.js';
import { parseDuration } from '../core/duration.js';
import { describeFailure } from './failure.js';
import { resolveInputFile } from './inputFile.js';
import { type CommandIo, ENV_HELP, processIo, TARGET_HELP } from './io.js';
import { parseArgs } from './parseArgs.js';
import { formatBytes, StatusSpinner, UploadProgress } from './progress.js';
import { isLive, jsonFlag, targetFlags } from './sharedFlags.js';
import { openTarget, UsageError } from './target.js';

export const transcribeHelp = `Usage: partner-sim transcribe <audio> [--target sim|URL|live [--region us|jp|eu|sg]] [--json]

Uploads an audio file in parallel parts (retries, Retry-After honoured), completes the upload
with its MD5, submits it for transcription, polls with back-off until it ends, and prints the
transcript with times and speakers. The upload filetype is the file's extension; live accepts
mp3 and opus only (the in-process simulator is started accepting the file's extension).
A fixture named as in the docs (fixtures/audio/meeting.mp3, or meeting.mp3) is read from the
package when the working folder has no such file; the output says so.

Options:
${TARGET_HELP}
  --json                    print the final transcription task as JSON (progress goes to stderr)
  --deadline <duration>     give up polling after this long: 2m, 90s, or seconds
                            (default 2m; 20m on live)
  -h, --help                show this help

${ENV_HELP}
`;

/** --deadline: a duration, a bare number in seconds (as it always was). */
function deadlineOf(raw: string): number {
  let ms: number;
  try {
    ms = parseDuration(raw, 's');
  } catch (e) {
    throw new UsageError(`--deadline ${raw}: ${(e as Error).message}`);
  }
  if (ms <= 0) throw new UsageError(`--deadline ${raw}: expected more than nothing`);
  return ms;
}

/** "0:05.85" */
const clock = (s: number) => `${Math.floor(s / 60)}:${(s % 60).toFixed(2).padStart(5, '0')}`;

export function formatTranscript(t: Transcript): string {
  const head = `transcript (${t.language ?? 'language unknown'}, ${t.lines.length} segment${t.lines.length === 1 ? '' : 's'}):`;
  const lines = t.lines.map((l) => `[${clock(l.start)} → ${clock(l.end)}] ${l.speaker}: ${l.text}`);
  return `${[head, ...lines].join('\n')}\n`;
}

export async function runTranscribe(argv: string[], io: CommandIo = processIo()): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ...targetFlags,
      ...jsonFlag,
      deadline: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    io.stdout.write(transcribeHelp);
    return 0;
  }
  const target = values.target;
  const fail = (e: unknown) => {
    const { line, code } = describeFailure(e, target);
    io.stderr.write(`partner-sim transcribe: ${line}\n`);
    return code;
  };
  // Progress is for people: with --json it goes to stderr so stdout stays one JSON document.
  const ui = values.json ? io.stderr : io.stdout;
  let stop = async () => {};
  try {
    const [audio, ...extra] = positionals;
    if (!audio || extra.length > 0) throw new UsageError('expects exactly one audio file (see --help)');
    const deadlineMs = values.deadline === undefined ? undefined : deadlineOf(values.deadline);
    const filetype = extname(audio).slice(1).toLowerCase();
    if (!filetype) throw new UsageError(`cannot tell the filetype of '${audio}': it has no extension`);
    const input = resolveInputFile(audio, io.cwd);
    if (input.note) ui.write(`${input.note}\n`);
    const bytes = await readFile(input.path);
    const live = isLive(target);
    const t = await openTarget(
      target,
      io.env,
      {
        uploadFiletypes: ['mp3', 'opus'].includes(filetype) ? [] : [filetype],
        // Small parts on the in-process simulator, so even a short file goes up in parallel parts.
        chunkSize: Math.min(5 * 1024 * 1024, Math.max(8 * 1024, Math.ceil(bytes.length / 8))),
      },
      values.region,
    );
    stop = t.stop;
    ui.write(`${audio}: ${formatBytes(bytes.length)} ${filetype} → ${t.label}\n`);
    const client = new PartnerClient(t);
    const progress = new UploadProgress(ui, bytes.length);
    const file = await client.upload(bytes, filetype, { onProgress: (p) => progress.update(p.sent) });
    progress.done();
    ui.write(`uploaded ${file.FileId} (MD5 ${file.FileMd5} checked)\n`);
    const task = await client.transcribe(file.DownloadUrl);
    const spinner = new StatusSpinner(ui, `transcription ${task.transcription_id}`);
    spinner.set(task.status);
    try {
      const { task: done } = await client.poll(task.transcription_id, {
        deadlineMs: deadlineMs ?? (live ? 1_200_000 : 120_000),
        backoff: { baseMs: 500, capMs: live ? 15_000 : 2000 },
        onStatus: (s) => spinner.set(s),
      });
      spinner.stop();
      io.stdout.write(
        values.json ? `${JSON.stringify(done, null, 2)}\n` : formatTranscript(readTranscript(done)),
      );
    } finally {
      spinner.stop();
    }
    return 0;
  } catch (e) {
    return fail(e);
  } finally {
    await stop();
  }
}
