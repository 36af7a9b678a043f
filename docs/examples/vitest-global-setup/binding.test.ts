import { ControlClient } from 'partner-sim';
import { expect, inject, test } from 'vitest';

const sim = inject('partnerSim');
const control = new ControlClient(sim.admin);

// The demo app every simulator loads from its fixtures.
const demo = { client_id: 'demo-client-us', secret_key: 'demo-secret-us-0000' };

test('an unbound device with a history is reported as such', async () => {
  const sn = '8810EXAMPLE00001';
  const history = ['client_user_3f2c8a90-1b2c-4d5e-8f90-123456789abc'];
  await control.putDevice(sn, { is_bind: false, bind_history: history });

  // Your partner client goes here, pointed at sim.us instead of the live base URL.
  const basic = Buffer.from(`${demo.client_id}:${demo.secret_key}`).toString('base64');
  const partner = await fetch(`${sim.us}/oauth/partner/access-token`, {
    method: 'POST',
    headers: { authorization: `Basic ${basic}` },
  }).then((r) => r.json());
  const user = await fetch(`${sim.us}/open/partner/users/access-token`, {
    method: 'POST',
    headers: { authorization: `Bearer ${partner.access_token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: 'example-user-1' }),
  }).then((r) => r.json());
  const binding = await fetch(`${sim.us}/open/partner/sdk/binding?type=notepro&sn=${sn}`, {
    headers: { authorization: `Bearer ${user.access_token}` },
  });

  expect(binding.status).toBe(200);
  expect(await binding.json()).toEqual({ is_bind: false, bind_history: history });
  await control.deleteDevice(sn);
});
