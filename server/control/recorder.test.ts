import { describe, expect, it } from 'vitest';
import { DEMO_US, exchangeToken, http } from '../testing/http.js';
import { useTestServers } from '../testing/useTestServers.js';

const servers = useTestServers();

describe('request recorder', () => {
  it('survives a journal that throws: the request is answered, the process and later requests go on', async () => {
    const s = await servers.start();
    const add = s.services.journal.add.bind(s.services.journal);
    let throws = true;
    s.services.journal.add = (...args) => {
      if (throws) throw new RangeError('Invalid time value');
      return add(...args);
    };
    const first = await exchangeToken(s.api, DEMO_US);
    expect(first.status).toBe(200);
    // The close listener runs after the answer: give it its turn, then prove the process lives.
    await new Promise((r) => setTimeout(r, 20));
    throws = false;
    expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
    const journal = await http('GET', `${s.admin}/requests`);
    expect(journal.body.length).toBe(1);
  });

  it('survives a logger that throws, even when logging the failure throws too', async () => {
    const s = await servers.start({ logLevel: 'debug' });
    const logger = s.services.deps.logger;
    const boom = () => {
      throw new Error('log sink gone');
    };
    const saved = { info: logger.info, debug: logger.debug, error: logger.error };
    Object.assign(logger, { info: boom, debug: boom, error: boom });
    try {
      expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
      expect((await http('GET', `${s.admin}/clock`)).status).toBe(200);
      await new Promise((r) => setTimeout(r, 20));
      expect((await exchangeToken(s.api, DEMO_US)).status).toBe(200);
    } finally {
      Object.assign(logger, saved);
    }
    expect((await http('GET', `${s.admin}/requests`)).body.length).toBe(2);
  });
});
