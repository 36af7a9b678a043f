import type { ServerResponse } from 'node:http';

/**
 * Hold a response's end until `work` is done: the last bytes (and so the client's "done") go
 * out only after it settled. With a shared store the request's journal entry is written here,
 * so a client that next lists the journal through another instance sees its own request.
 * `work` sees the status about to be sent; its failure never stops the response.
 */
export function beforeEnd(res: ServerResponse, work: (status: number) => Promise<unknown>): void {
  const end = res.end;
  res.end = function (this: ServerResponse, ...args: unknown[]) {
    res.end = end;
    let ran: Promise<unknown>;
    try {
      ran = work(res.statusCode);
    } catch (e) {
      ran = Promise.reject(e);
    }
    ran.catch(() => {}).finally(() => (end as (...a: unknown[]) => ServerResponse).apply(res, args));
    return res;
  } as ServerResponse['end'];
}
