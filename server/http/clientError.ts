import type { Socket } from 'node:net';
import { STORAGE_PREFIX } from './apiPrefixes.js';
import { s3ErrorXml } from './errorHandler.js';

/**
 * Node answers requests it cannot parse (headers over its 16 KB limit, a broken request line)
 * itself, before Express sees them, with a bare status and no body. This listener for the
 * server's 'clientError' event answers them in the documented form instead: JSON, or S3 XML
 * when the request line names the storage host, always closing the connection, since what
 * follows on the socket cannot be trusted to start a request.
 */
export function answerClientError(err: Error & { code?: string; rawPacket?: Buffer }, socket: Socket): void {
  // A client that went away, or one too slow to send its headers: nobody waits for an answer.
  if (!socket.writable || err.code === 'ECONNRESET' || err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
  const [method, target = ''] = err.rawPacket?.subarray(0, 256).toString('latin1').split(' ') ?? [];
  const storage = target === STORAGE_PREFIX || target.startsWith(`${STORAGE_PREFIX}/`);
  let type = 'application/json; charset=utf-8';
  let body: string;
  if (storage) {
    type = 'application/xml';
    body = tooLarge
      ? s3ErrorXml(
          'RequestHeaderSectionTooLarge',
          'Your request header section exceeds the maximum allowed size.',
          '',
          '0',
        )
      : s3ErrorXml('InvalidArgument', 'The request could not be parsed.', '', '0');
  } else {
    body = JSON.stringify(
      tooLarge
        ? { detail: 'HEADERS_TOO_LARGE', message: 'Request header fields too large' }
        : { detail: 'BAD_REQUEST', message: 'The request could not be parsed' },
    );
  }
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      // A HEAD answer has no body: the length is the one a GET would have had.
      `Connection: close\r\n\r\n${method === 'HEAD' ? '' : body}`,
  );
}
