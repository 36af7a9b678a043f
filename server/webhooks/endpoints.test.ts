import { describe, expect, it } from 'vitest';
import { http } from '../testing/http.js';
import { useWebhookSim } from '../testing/webhookKit.js';

// Webhook endpoints through the control API.

const { s, newApp, endpoint } = useWebhookSim();

describe('endpoints', () => {
  it('shows the secret once, lists without it, refuses non-http URLs, and goes with the app', async () => {
    const app = await newApp();
    const made = await endpoint(app.client_id, {
      url: 'http://127.0.0.1:9/hook',
      events: ['transcription.completed'],
    });
    expect(made.status).toBe(201);
    expect(made.body.secret).toMatch(/^whsec_[0-9a-f]{32}$/);
    expect(made.body).toMatchObject({
      scheme: 'current',
      enabled: true,
      events: ['transcription.completed'],
    });
    const listed = (await http('GET', `${s.admin}/apps/${app.client_id}/webhooks`)).body;
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(made.body.secret);
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'javascript:alert(1)', 'not a url']) {
      const bad = await endpoint(app.client_id, { url });
      expect(bad.status, url).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'url']);
    }
    const paused = await http('PATCH', `${s.admin}/apps/${app.client_id}/webhooks/${made.body.id}`, {
      json: { enabled: false },
    });
    expect(paused.body.enabled).toBe(false);
    expect((await http('GET', `${s.admin}/apps/nobody/webhooks`)).status).toBe(404);
    expect((await http('DELETE', `${s.admin}/apps/${app.client_id}`)).status).toBe(204);
    await http('POST', `${s.admin}/apps`, { json: { client_id: app.client_id } });
    expect((await http('GET', `${s.admin}/apps/${app.client_id}/webhooks`)).body).toEqual([]);
  });
});
