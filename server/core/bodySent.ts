/**
 * Whether a request carries a body, judged from its headers alone (before any parser ran):
 * a chunked body, or a positive Content-Length.
 */
export function bodySent(headers: Record<string, unknown>): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}
