import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../store/store.js';
import { errorCodeOf, readableLine } from './requestLine.js';

const entry = (over: Partial<JournalEntry> = {}): JournalEntry => ({
  id: '1',
  time: '2026-01-01T00:00:00.000Z',
  operation: 'getDeviceBinding',
  method: 'GET',
  path: '/developer/api/open/partner/sdk/binding?sn=8810B30227290003',
  status: 200,
  latency_ms: 1.25,
  client_id: 'demo-client-us',
  headers: {},
  fault_id: null,
  request_id: 'sim-abc-1',
  ...over,
});

describe('errorCodeOf', () => {
  it('takes the code of a partner API error, an auth detail and an S3 document', () => {
    expect(errorCodeOf({ code: 'TOKEN_EXPIRED', message: 'expired' })).toBe('TOKEN_EXPIRED');
    expect(errorCodeOf({ detail: 'INVALID_CLIENT' })).toBe('INVALID_CLIENT');
    expect(errorCodeOf('<Error><Code>AccessDenied</Code><Message>no</Message></Error>')).toBe('AccessDenied');
  });

  it('takes no free text, lists or anything not shaped like a code', () => {
    expect(errorCodeOf({ detail: [{ loc: ['body', 'x'] }] })).toBeUndefined();
    expect(errorCodeOf({ detail: 'a sentence with spaces' })).toBeUndefined();
    expect(errorCodeOf('plain text')).toBeUndefined();
    expect(errorCodeOf(undefined)).toBeUndefined();
  });
});

describe('readableLine', () => {
  it('says method, path, status, code, ms, app and request id on one line', () => {
    const line = readableLine(entry({ status: 401 }), 'TOKEN_EXPIRED');
    expect(line).toBe(
      'GET /developer/api/open/partner/sdk/binding?sn=8810B30227290003 401 TOKEN_EXPIRED 1.25ms app=demo-client-us id=sim-abc-1',
    );
  });

  it('marks claimed apps, faults and answers never sent', () => {
    const line = readableLine(
      entry({ status: 0, error: 'connection reset by fault f1', unverified: true, fault_id: 'f1' }),
      undefined,
    );
    expect(line).toContain(' --- (connection reset by fault f1) 1.25ms app=demo-client-us? fault=f1 ');
    expect(readableLine(entry({ client_id: null }), undefined)).not.toContain('app=');
  });
});
