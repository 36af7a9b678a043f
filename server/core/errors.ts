import { bounded, boundedString, TRUNCATED } from './bounded.js';

/** One bad field of a 422, FastAPI-style: where, what, and the value sent. */
export interface ValidationIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

export interface SimErrorOptions {
  /** FastAPI-style issues; present only on 422 validation errors. */
  issues?: ValidationIssue[];
  /** Extra response headers (e.g. Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  /** Answer with the status alone: no body, no content type (the spec's bare 404). */
  bare?: boolean;
  /** S3 `<Resource>` element for storage errors. */
  resource?: string;
}

const MAX_ISSUES = 50;
const MAX_LOC = 32;

/**
 * The one error type of the simulator. Domain code throws it with a status and a code; the
 * HTTP layer turns it into a response in exactly one place (server/http/errorHandler.ts):
 * JSON for the partner and admin APIs, S3-style XML for the storage host.
 */
export class SimError extends Error {
  readonly status: number;
  readonly code: string;
  readonly issues: ValidationIssue[] | undefined;
  readonly headers: Record<string, string>;
  readonly bare: boolean;
  readonly resource: string | undefined;

  constructor(status: number, code: string, message: string, options: SimErrorOptions = {}) {
    super(message);
    this.name = 'SimError';
    this.status = status;
    this.code = code;
    this.issues = options.issues;
    this.headers = options.headers ?? {};
    this.bare = options.bare ?? false;
    this.resource = options.resource;
  }

  /**
   * Every 422 is built here, so this is where what the client sent is cut to a size that can
   * be echoed: at most MAX_ISSUES issues, `loc` and `input` bounded (see bounded.ts).
   */
  static validation(all: ValidationIssue[]): SimError {
    const issues = all.slice(0, MAX_ISSUES).map(({ input, ...i }) => ({
      ...i,
      loc: (i.loc.length > MAX_LOC ? [...i.loc.slice(0, MAX_LOC), TRUNCATED] : i.loc).map((p) =>
        typeof p === 'string' ? boundedString(p) : p,
      ),
      ...(input === undefined ? {} : { input: bounded(input) }),
    }));
    const fields = issues.map((i) => i.loc.join('.')).join(', ');
    const more = all.length > issues.length ? ` and ${all.length - issues.length} more` : '';
    return new SimError(422, 'VALIDATION_ERROR', `Invalid request: ${fields}${more}`, { issues });
  }

  /** One-field validation failure for rules a schema cannot express (e.g. type vs prefix). */
  static invalidField(
    loc: (string | number)[],
    msg: string,
    type = 'value_error',
    input?: unknown,
  ): SimError {
    return SimError.validation([{ loc, msg, type, ...(input === undefined ? {} : { input }) }]);
  }

  static unauthorized(code: string, message: string): SimError {
    return new SimError(401, code, message);
  }

  static forbidden(code: string, message: string): SimError {
    return new SimError(403, code, message);
  }

  static notFound(code: string, message: string): SimError {
    return new SimError(404, code, message);
  }

  static bareNotFound(): SimError {
    return new SimError(404, 'NOT_FOUND', 'Not found', { bare: true });
  }

  static conflict(code: string, message: string): SimError {
    return new SimError(409, code, message);
  }

  static badRequest(code: string, message: string): SimError {
    return new SimError(400, code, message);
  }
}
