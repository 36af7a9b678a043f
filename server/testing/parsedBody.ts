import { Readable } from 'node:stream';
import type { Request, RequestHandler } from 'express';

/** What a body parser made of a request: its error (passed to `next`), else `req.body`. */
export interface Parsed {
  error?: { status: number; type: string; message: string; body?: unknown };
  body?: unknown;
  headers: Request['headers'];
}

/**
 * Run a body parser middleware (express.json or the simulator's) on `body` sent as JSON, with
 * no server: a stream of its bytes stands for the request.
 */
export function parsedBody(parser: RequestHandler, body: string): Promise<Parsed> {
  const req = Readable.from([Buffer.from(body)]) as unknown as Request;
  req.headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
  return new Promise((resolve) => {
    parser(req, {} as never, (e?: unknown) =>
      resolve(
        e ? { error: e as Parsed['error'], headers: req.headers } : { body: req.body, headers: req.headers },
      ),
    );
  });
}
