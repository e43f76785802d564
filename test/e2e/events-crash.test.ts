import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort } from '../support/free-port';
import { clientCredentialsToken } from '../support/identity';
import { Broker, eventually, startBroker, subscribe } from '../support/mqtt';
import { json, sampleShell } from '../support/server';
import { killAll, startServerProcess, stopServerProcess } from '../support/server-process';

/**
 * A server killed with SIGKILL after a change committed and before its event was published (the broker was not
 * reachable): the event is in the outbox, on disk, and the restarted server delivers it. The real process on the
 * embedded database, as `npm start` runs it.
 */
let broker: Broker | undefined;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'events-crash-'));
afterAll(async () => {
  killAll();
  await broker?.remove();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('delivers an event committed before a kill -9, after the restart', async () => {
  broker = await startBroker();
  const clientId = randomUUID();
  const secret = randomBytes(32).toString('base64url');
  const env = (mqttUrl: string) => () => ({ MQTT_URL: mqttUrl, EVENTS_POLL_MS: '100', DEFAULT_TENANT_SHOWCASE: 'true', BOOTSTRAP_CLIENT_ID: clientId, BOOTSTRAP_CLIENT_SECRET: secret });
  // First life: a broker nobody listens on.
  const first = await startServerProcess(dir, { env: env(`mqtt://127.0.0.1:${await freePort()}`) });
  const token = await clientCredentialsToken(first, clientId, secret);
  const me = await json(await fetch(`${first.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } }));
  const tenant = me.tenants.find((t: { name: string }) => t.name === 'default');
  const patched = await fetch(`${first.url}/api/v1/organizations/${tenant.organizationId}/tenants/${tenant.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ eventsEnabled: true }),
  });
  expect(patched.status).toBe(200);
  expect((await json(patched)).eventsEnabled).toBe(true);
  const api = `${first.url}/tenants/default/api/v3.0`;
  const created = await fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:crash:1')) });
  expect(created.status).toBe(201);
  // Give the publisher rounds to fail on (it must not lose the event by failing).
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(await stopServerProcess(first, 'SIGKILL')).toBe(null);

  const sub = await subscribe(broker.url, ['aas-repository/default/shells/+']);
  try {
    const second = await startServerProcess(dir, { env: env(broker.url) });
    await eventually(() => sub.received.length >= 1, 20_000, () => 'no event after the restart');
    expect(sub.received[0].topic).toBe('aas-repository/default/shells/created');
    expect(sub.received[0].envelope.data.id).toBe('urn:crash:1');
    expect(sub.received[0].envelope.source).toMatch(/\/tenants\/default\/api\/v3\.0\/shells$/);
    await stopServerProcess(second, 'SIGTERM');
  } finally {
    await sub.close();
  }
}, 120_000);
