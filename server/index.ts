/**
 * The package entry (`import … from 'partner-sim'`): what a partner's test runner needs to
 * start a simulator and arrange its state. The CLI (`partner-sim`) is the other way in.
 */

/** The one partner API client (tokens, binding, parallel upload with retries, polling). */
export * from './client/index.js';
export type { Config } from './config.js';
export { ControlClient, type ControlClientOptions, ControlError } from './embed/controlClient.js';
export type {
  ControlArgs,
  ControlBody,
  ControlInput,
  ControlOperationId,
  ControlPath,
  ControlQuery,
  ControlResult,
} from './embed/controlTypes.js';
export {
  type SimulatorHandle,
  type SimulatorOptions,
  type SimulatorUrls,
  startSimulator,
} from './embed/startSimulator.js';
/** Types generated from server/admin.openapi.yaml (control API). */
export type * as admin from './spec/admin-types.js';
/** Types generated from openapi.yaml (partner API). */
export type * as api from './spec/api-types.js';
/** Receiver helper: verify a webhook delivery's signature and timestamp (both schemes). */
export {
  type VerifyWebhookInput,
  type VerifyWebhookResult,
  verifyWebhook,
  type WebhookScheme,
} from './webhooks/signature.js';
