import { PartnerApiError } from '../client/http.js';
import { PollDeadlineExceeded, PollRefused, TranscriptionFailed } from '../client/poll.js';
import { UploadError } from '../client/upload.js';
import { redactText } from '../control/redact.js';
import { UsageError } from './target.js';

/**
 * Every failure of a client command as one line a person can act on, and its exit code
 * (2: how the command was called; 1: what the target said or did). Never a stack trace, and
 * never a credential: each line goes through the one redactor.
 */
export function describeFailure(e: unknown, target: string): { line: string; code: number } {
  const line = (text: string, code = 1) => ({ line: redactText(text), code });
  if (e instanceof UsageError) return line(e.message, 2);
  if (e instanceof PartnerApiError) {
    if (e.operation === 'getPartnerToken' && (e.status === 401 || e.status === 403))
      return line(
        `bad credentials: ${target} refused the app's client id or secret key (HTTP ${e.status}${e.code ? ` ${e.code}` : ''})`,
      );
    if (e.operation === 'createTranscription' && e.status === 401)
      return line(
        `bad credentials: ${target} refused the app's API key (HTTP 401${e.code ? ` ${e.code}` : ''})`,
      );
    if (e.operation === 'getDeviceBinding' && e.status === 404)
      return line(
        `unknown device: ${e.detail || 'the serial was never signed'} (HTTP 404); sign it with the SDK first`,
      );
    return line(`${e.message}`);
  }
  if (e instanceof UploadError) {
    const body = typeof e.body === 'string' ? e.body : JSON.stringify(e.body ?? '');
    if (e.step === 'part' && e.status === 403 && /expired/i.test(`${e.reason} ${body}`))
      return line(`expired URL: the presigned URL of part ${e.part} expired before it was sent (HTTP 403)`);
    if (e.step === 'presign' && e.status === 400 && /FILE_TYPE/i.test(body))
      return line(`the upload API refused the file type: ${e.reason.replace(/^HTTP \d+: /, '')}`);
    return line(`${e.message}`);
  }
  if (e instanceof TranscriptionFailed)
    return line(`transcription ${e.status}: ${e.task.message ?? 'no reason given'}`);
  if (e instanceof PollDeadlineExceeded || e instanceof PollRefused) return line(e.message);
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err instanceof TypeError && err.message === 'fetch failed')
    return line(`target unreachable: ${target}: ${err.cause?.code ?? err.cause?.message ?? 'no answer'}`);
  if ((err as { code?: string }).code === 'ENOENT' || (err as { code?: string }).code === 'EISDIR')
    return line(`cannot read the audio file: ${err.message}`, 2);
  return line(err?.message ?? String(e));
}
