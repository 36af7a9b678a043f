/** The partner API client: what the CLI, sdk-tests, bench and the contract suite use. */

export { errorCodeOf, PartnerApiError } from './http.js';
export { PartnerClient, type PartnerClientOptions, type PartnerCredentials } from './partnerClient.js';
export {
  PollDeadlineExceeded,
  PollRefused,
  type PollResult,
  pollTranscription,
  pollUntil,
  TranscriptionFailed,
} from './poll.js';
export {
  type BindingResponse,
  deviceTypeOf,
  fetchBinding,
  planRecovery,
  type RecoveryPlan,
  runRecovery,
} from './recovery.js';
export { type Backoff, fullJitter, isTransient, retryAfterMs } from './retry.js';
export { md5hex, type UploadedFile, type UploadSession } from './steps.js';
export {
  readTranscript,
  submitTranscription,
  type Transcript,
  type TranscriptionTask,
} from './transcription.js';
export {
  type RetryEvent,
  UploadError,
  type UploadOptions,
  uploadAll,
  uploadBytes,
  uploadSource,
} from './upload.js';
