import type { components } from '../spec/api-types.js';
import { bearerJson as json, PartnerApiError, send } from './http.js';
import { type PollOptions, type PollResult, pollTranscription } from './poll.js';
import { type BindingResponse, type DeviceType, deviceTypeOf, fetchBinding } from './recovery.js';
import type { UploadedFile } from './steps.js';
import { submitTranscription, type TranscriptionParams, type TranscriptionTask } from './transcription.js';
import { type UploadOptions, uploadBytes } from './upload.js';

/**
 * One typed client for the partner API: tokens, device binding, the multipart upload and
 * transcription. Types come from openapi.yaml (server/spec/api-types.ts); answers other than
 * the documented success throw a PartnerApiError naming the operation, status and code.
 */
type Schemas = components['schemas'];
export type PartnerToken = Schemas['PartnerToken'];
type UserToken = Schemas['UserToken'];
type BindAnswer = Schemas['BindAnswer'];

export interface PartnerCredentials {
  client_id: string;
  secret_key: string;
  api_key: string;
}

export interface PartnerClientOptions {
  /** Partner API base, e.g. http://127.0.0.1:4010/developer/api or a live regional host. */
  api: string;
  app: PartnerCredentials;
  /** The partner's user the user token is minted for. */
  userId: string;
}

export class PartnerClient {
  private user: Promise<string> | undefined;
  constructor(readonly options: PartnerClientOptions) {}

  get api(): string {
    return this.options.api;
  }

  /** Exchange the app's credentials for a Partner Token. */
  async partnerToken(): Promise<PartnerToken> {
    const { client_id, secret_key } = this.options.app;
    const r = await send('getPartnerToken', `${this.api}/oauth/partner/access-token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client_id}:${secret_key}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: '',
    });
    return r.body as PartnerToken;
  }

  /** A User Token for the configured user (minted once, then reused). */
  userToken(): Promise<string> {
    this.user ??= (async () => {
      const partner = await this.partnerToken();
      const r = await send(
        'createUserToken',
        `${this.api}/open/partner/users/access-token`,
        json(partner.access_token, { user_id: this.options.userId }),
      );
      return (r.body as UserToken).access_token;
    })().catch((e: unknown) => {
      this.user = undefined;
      throw e;
    });
    return this.user;
  }

  /** The binding of a serial; the type defaults to the one its prefix names. */
  async binding(sn: string, type: DeviceType = deviceTypeOf(sn)): Promise<BindingResponse> {
    const b = await fetchBinding(this.api, await this.userToken(), sn, type);
    if (!b)
      throw new PartnerApiError('getDeviceBinding', 404, 'DEVICE_NOT_FOUND', `serial ${sn} was never signed`);
    return b;
  }

  private async device(
    op: 'signDeviceSerial' | 'bindDevice' | 'unbindDevice',
    path: string,
    sn: string,
    type?: DeviceType,
  ) {
    const body = { type: type ?? deviceTypeOf(sn), sn };
    const r = await send(op, `${this.api}/open/partner/sdk/${path}`, json(await this.userToken(), body));
    return r.body as BindAnswer;
  }
  sign = (sn: string, type?: DeviceType) => this.device('signDeviceSerial', 'sn-sign', sn, type);
  bind = (sn: string, type?: DeviceType) => this.device('bindDevice', 'bind', sn, type);
  unbind = (sn: string, type?: DeviceType) => this.device('unbindDevice', 'unbind', sn, type);

  /** Upload bytes in parallel parts with retries, completing with their MD5. */
  async upload(bytes: Uint8Array, filetype: string, opts: UploadOptions = {}): Promise<UploadedFile> {
    return uploadBytes(this.api, await this.userToken(), bytes, filetype, opts);
  }

  /** Submit a transcription of a file URL (answers PENDING). */
  transcribe(fileUrl: string, params?: TranscriptionParams): Promise<TranscriptionTask> {
    return submitTranscription(this.api, this.options.app, fileUrl, params);
  }

  /** Poll a transcription to SUCCESS (backoff with full jitter, hard deadline). */
  poll(id: string, opts: PollOptions & { onStatus?: (status: string) => void }): Promise<PollResult> {
    return pollTranscription(this.api, this.options.app, id, opts);
  }
}
