import { expect } from 'vitest';
import { DEMO_US, exchangeToken, http } from './http.js';
import type { TestServer } from './testServer.js';
import { useTestServers } from './useTestServers.js';

/**
 * For the request journal's test files: `start()` a simulator (stopped after each test),
 * `exchange()` an app's credentials for a partner token, and read `journal()` entries
 * through the control API, newest first.
 */
export function useJournalServers() {
  const servers = useTestServers();
  const exchange = (s: TestServer, app = DEMO_US) => exchangeToken(s.api, app);
  // biome-ignore lint/suspicious/noExplicitAny: journal entries are read as JSON
  const journal = async (s: TestServer, query = ''): Promise<any[]> => {
    const r = await http('GET', `${s.admin}/requests${query}`);
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  return { start: servers.start, exchange, journal };
}
