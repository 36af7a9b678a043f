import { randomBytes } from 'node:crypto';
import { signJwt } from '../domain/jwt.js';
import { credentialsOf, hasScheme } from '../http/authScheme.js';
import { type Carry, PLACEHOLDER } from './carry.js';
import { type HarEntry, harHeader } from './har.js';

/** The throw-away app's credentials, which stand in for the recording's good ones. */
export interface CredentialApp {
  client_id: string;
  secret_key: string;
  api_key: string;
}

/** Answers that say the credential itself was refused. */
const REFUSED = new Set([401]);

/**
 * The recording's credentials as the replay sends them. A redacted secret stands for one
 * value (the redactor's placeholders are stable), so each recorded Basic credential and
 * `X-Client-Api-Key` is told apart by its placeholder: one that live ever accepted (any answer
 * but 401) was the app's real secret and becomes the throw-away app's; one only ever refused
 * was a wrong secret and becomes a wrong value of the same shape, so a recorded 401 replays
 * as a 401 instead of a 200 (and `--as-faults` never turns a client's own mistake into a rule).
 * A Bearer placeholder the target gave no token for (no recorded answer minted it: another
 * app's token, a made-up one) becomes a forged token: a well-formed JWT signed with a key of
 * this replay's own, so the target refuses it for its signature as live refused the recorded
 * one, not for being malformed (which a target may answer otherwise).
 */
export class ReplayCredentials {
  private readonly accepted = { basic: new Set<string>(), key: new Set<string>() };
  private readonly wrong = new Map<string, string>();
  private readonly forged = new Map<string, string>();
  /** Known to no target: what it signs is refused for its signature. */
  private readonly forgeKey = randomBytes(32);

  constructor(
    private readonly app: CredentialApp,
    entries: HarEntry[],
    /** The recording's own client_id: another one named in a request stays foreign. */
    private readonly recordedApp: string | undefined,
    /** The tokens learnt so far: a placeholder the target minted a token for is carried, not forged. */
    private readonly carry: Pick<Carry, 'whole'>,
  ) {
    for (const e of entries) {
      if (REFUSED.has(e.response.status)) continue;
      const basic = credentialsOf(harHeader(e.request.headers, 'authorization'), 'Basic');
      if (basic) this.accepted.basic.add(basic);
      const key = harHeader(e.request.headers, 'x-client-api-key');
      if (key) this.accepted.key.add(key);
    }
  }

  /** A wrong value of `like`'s length, the same for every use of one recorded value. */
  private wrongLike(recorded: string, like: string): string {
    let w = this.wrong.get(recorded);
    if (w === undefined) {
      const seed = `wrong-${this.wrong.size + 1}-`;
      w = seed.padEnd(Math.max(like.length, seed.length), 'x').slice(0, Math.max(like.length, seed.length));
      this.wrong.set(recorded, w);
    }
    return w;
  }

  /** A JWT-shaped token for a placeholder no answer minted, the same for every use of it. */
  private forge(placeholder: string): string {
    let token = this.forged.get(placeholder);
    if (token === undefined) {
      const iat = Math.floor(Date.now() / 1000);
      // A token id of its own: two recorded tokens stay two values, as they were.
      const jti = randomBytes(8).toString('hex');
      const claims = { client_id: this.app.client_id, token_use: 'partner', jti, iat, exp: iat + 3600 };
      token = signJwt(claims, this.forgeKey);
      this.forged.set(placeholder, token);
    }
    return token;
  }

  /**
   * The value the replay sends for a credential header (`authorization` with Basic, or Bearer
   * with a placeholder the target gave no token for, `x-client-api-key`, `x-client-id`), or
   * undefined when it is none of them (a carried token is the carry's to replace).
   */
  header(name: string, value: string): string | undefined {
    const app = this.app;
    if (name === 'authorization' && hasScheme(value, 'Basic')) {
      const recorded = credentialsOf(value, 'Basic') ?? '';
      const secret = this.accepted.basic.has(recorded)
        ? app.secret_key
        : this.wrongLike(recorded, app.secret_key);
      return `Basic ${Buffer.from(`${app.client_id}:${secret}`).toString('base64')}`;
    }
    if (name === 'authorization' && hasScheme(value, 'Bearer')) {
      const token = credentialsOf(value, 'Bearer') ?? '';
      return PLACEHOLDER.test(token) && this.carry.whole(token) === undefined
        ? `Bearer ${this.forge(token)}`
        : undefined;
    }
    if (name === 'x-client-api-key')
      return this.accepted.key.has(value) ? app.api_key : this.wrongLike(value, app.api_key);
    if (name === 'x-client-id')
      return this.recordedApp === undefined || value === this.recordedApp ? app.client_id : value;
    return undefined;
  }
}
