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
      name: null,
      scheme: 'current',
      payload: 'docs',
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

  it('takes a name as the Developer Portal asks for one, lists it, renames it and removes it', async () => {
    const app = await newApp();
    const made = await endpoint(app.client_id, { name: 'Transcripts → CRM', url: 'http://127.0.0.1:9/hook' });
    expect(made.status).toBe(201);
    expect(made.body.name).toBe('Transcripts → CRM');
    const path = `${s.admin}/apps/${app.client_id}/webhooks`;
    expect((await http('GET', path)).body.map((e: { name: string }) => e.name)).toEqual([
      'Transcripts → CRM',
    ]);
    const renamed = await http('PATCH', `${path}/${made.body.id}`, { json: { name: 'CRM' } });
    expect(renamed.body).toMatchObject({ name: 'CRM', url: 'http://127.0.0.1:9/hook' });
    expect((await http('PATCH', `${path}/${made.body.id}`, { json: { name: null } })).body.name).toBeNull();
    for (const name of ['', 'x'.repeat(101), 7]) {
      const bad = await endpoint(app.client_id, { name, url: 'http://127.0.0.1:9/hook' });
      expect(bad.status, String(name)).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'name']);
    }
  });
});
