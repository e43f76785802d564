import { Client, createClient } from 'graphql-ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { ChangeEvent } from '../../src/events/change-event';
import { ChangeHub, MAX_WAITING_EVENTS, listen } from '../../src/events/hub';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { newUser } from '../support/identity';
import { newOrganization } from '../support/management';
import { eventually } from '../support/mqtt';
import { TestServer, b64, sampleShell, startTestServer, testEvents } from '../support/server';

/**
 * GraphQL subscriptions to change events over WebSocket (graphql-ws at /graphql), on a server with its own
 * database and an outbox publisher (no MQTT: the hub is fed all the same).
 */
let database: FreshDatabase;
let server: TestServer;

beforeAll(async () => {
  database = await freshDatabase('subscriptions');
  server = await startTestServer(database.url, { events: { ...testEvents, publish: true, pollMs: 100 } });
}, 120_000);

afterAll(async () => {
  await server?.close();
  await database?.drop();
});

const wsUrl = () => `${server.url.replace(/^http/, 'ws')}/graphql`;

function client(token?: string): Client {
  return createClient({ url: wsUrl(), webSocketImpl: WebSocket, lazy: true, retryAttempts: 0, connectionParams: token ? { Authorization: `Bearer ${token}` } : {} });
}

interface Collected {
  events: Record<string, any>[];
  errors: unknown[];
  done: boolean;
  stop(): void;
}

const EVENT_FIELDS = 'id tenant kind type objectId version time state';

function collect(c: Client, query: string, variables: Record<string, unknown> = {}): Collected {
  const out: Collected = { events: [], errors: [], done: false, stop: () => undefined };
  out.stop = c.subscribe(
    { query, variables },
    {
      next: (result) => {
        if (result.errors) out.errors.push(...result.errors);
        if (result.data) out.events.push((result.data as { changeEvents: Record<string, any> }).changeEvents);
      },
      error: (err) => {
        out.errors.push(err);
        out.done = true;
      },
      complete: () => (out.done = true),
    },
  );
  return out;
}

const post = (url: string, body: unknown) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** Waits until the subscription is registered (its listener is on the hub). */
async function subscribed(count: number) {
  await eventually(() => server.services.changes.size >= count, 5_000, () => `hub listeners: ${server.services.changes.size}`);
}

describe('GraphQL subscriptions to change events', () => {
  it('deliver a showcase tenant\'s committed changes with their state, filtered by type and kind; unsubscribing frees the listener', async () => {
    const tenant = await server.createTenant({ showcase: true, eventsEnabled: true });
    const other = await server.createTenant({ showcase: true, eventsEnabled: true });
    const c = client();
    const before = server.services.changes.size;
    const all = collect(c, `subscription($t: String!) { changeEvents(tenant: $t) { ${EVENT_FIELDS} } }`, { t: tenant.name });
    const deletedShells = collect(c, `subscription($t: String!) { changeEvents(tenant: $t, types: [AssetAdministrationShell], kinds: [deleted]) { ${EVENT_FIELDS} } }`, { t: tenant.name });
    await subscribed(before + 2);
    const api = server.api(tenant.name);
    expect((await post(`${api}/shells`, sampleShell('urn:subs:1'))).status).toBe(201);
    expect((await post(`${server.api(other.name)}/shells`, sampleShell('urn:subs:other'))).status).toBe(201);
    expect((await fetch(`${api}/shells/${b64('urn:subs:1')}`, { method: 'DELETE' })).status).toBe(204);
    await eventually(() => all.events.length >= 2 && deletedShells.events.length >= 1, 10_000, () => JSON.stringify(all));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(all.errors).toEqual([]);
    expect(all.events.map((e) => [e.kind, e.type, e.objectId, e.version, e.tenant])).toEqual([
      ['created', 'AssetAdministrationShell', 'urn:subs:1', 1, tenant.name],
      ['deleted', 'AssetAdministrationShell', 'urn:subs:1', 1, tenant.name],
    ]);
    expect(all.events[0].state).toMatchObject({ id: 'urn:subs:1', modelType: 'AssetAdministrationShell' });
    expect(all.events[1].state).toBeNull();
    expect(BigInt(all.events[1].id)).toBeGreaterThan(BigInt(all.events[0].id));
    expect(deletedShells.events.map((e) => e.kind)).toEqual(['deleted']);
    all.stop();
    deletedShells.stop();
    await eventually(() => server.services.changes.size === before, 5_000, () => `hub listeners left: ${server.services.changes.size}`);
    await c.dispose();
  });

  it('follow the tenant access rules: no token 401, a tenant one holds no role in 404, a reader receives', async () => {
    const { owner, organization } = await newOrganization(server);
    const created = await owner.call('POST', `/organizations/${organization.id}/tenants`, { name: `subs-${Date.now()}`, eventsEnabled: true });
    const tenantName = created.body.name as string;
    const query = `subscription($t: String!) { changeEvents(tenant: $t) { ${EVENT_FIELDS} } }`;

    const anonymous = client();
    const refused = collect(anonymous, query, { t: tenantName });
    await eventually(() => refused.done || refused.errors.length > 0, 5_000, () => 'no answer');
    expect(JSON.stringify(refused.errors)).toMatch(/UNAUTHENTICATED/);
    await anonymous.dispose();

    const stranger = await newUser(server);
    const strangerClient = client(await stranger.token());
    const hidden = collect(strangerClient, query, { t: tenantName });
    await eventually(() => hidden.done || hidden.errors.length > 0, 5_000, () => 'no answer');
    expect(JSON.stringify(hidden.errors)).toMatch(/NOT_FOUND/);
    await strangerClient.dispose();

    const ownerClient = client(owner.token);
    const before = server.services.changes.size;
    const received = collect(ownerClient, query, { t: tenantName });
    await subscribed(before + 1);
    const write = await fetch(`${server.api(tenantName)}/shells`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${owner.token}` },
      body: JSON.stringify(sampleShell('urn:subs:owned')),
    });
    expect(write.status).toBe(201);
    await eventually(() => received.events.length >= 1, 10_000, () => JSON.stringify(received));
    expect(received.events[0]).toMatchObject({ kind: 'created', objectId: 'urn:subs:owned', tenant: tenantName });
    received.stop();
    await ownerClient.dispose();
  });

  it('refuses a connection with an invalid token, queries and mutations over WebSocket, and bad documents', async () => {
    const bad = createClient({ url: wsUrl(), webSocketImpl: WebSocket, lazy: false, retryAttempts: 0, connectionParams: { Authorization: 'Bearer not-a-token' } });
    const closed = await new Promise<{ code: number }>((resolve) => bad.on('closed', (event) => resolve(event as { code: number })));
    expect(closed.code).toBe(4403);
    await bad.dispose();

    const c = client();
    const query = collect(c, '{ __typename }');
    const garbage = collect(c, 'subscription { changeEvents(');
    const unknownField = collect(c, 'subscription { changeEvents(tenant: "x") { nope } }');
    await eventually(() => [query, garbage, unknownField].every((s) => s.done || s.errors.length > 0), 5_000, () => 'no answers');
    expect(JSON.stringify(query.errors)).toMatch(/Only subscriptions/);
    expect(JSON.stringify(garbage.errors)).toMatch(/Syntax Error/);
    expect(JSON.stringify(unknownField.errors)).toMatch(/Cannot query field \\"nope\\"/);
    await c.dispose();

    // Other paths do not upgrade.
    const elsewhere = new WebSocket(`${server.url.replace(/^http/, 'ws')}/tenants/x/api/v3.0`);
    const failed = await new Promise<string>((resolve) => {
      elsewhere.on('error', (err) => resolve(err.message));
      elsewhere.on('open', () => resolve('opened'));
    });
    expect(failed).toMatch(/404/);
  });
});

describe('several replicas', () => {
  // The embedded database serves one process: there is no other replica to hear from.
  it.skipIf(!process.env.DATABASE_URL)("reach a replica's subscribers when another replica delivered the events (NOTIFY)", async () => {
    const quiet = await startTestServer(database.url, { events: { ...testEvents, publish: false } });
    const c = createClient({ url: `${quiet.url.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, lazy: true, retryAttempts: 0 });
    try {
      const tenant = await server.createTenant({ showcase: true, eventsEnabled: true });
      const got = collect(c, `subscription($t: String!) { changeEvents(tenant: $t) { ${EVENT_FIELDS} } }`, { t: tenant.name });
      await eventually(() => quiet.services.changes.size >= 1, 5_000, () => 'not subscribed');
      // Its LISTEN starts with its first subscriber.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await post(`${quiet.api(tenant.name)}/shells`, sampleShell('urn:subs:replica'))).status).toBe(201);
      await eventually(() => got.events.length >= 1, 10_000, () => JSON.stringify(got));
      expect(got.events[0]).toMatchObject({ kind: 'created', objectId: 'urn:subs:replica', state: expect.objectContaining({ id: 'urn:subs:replica' }) });
      got.stop();
    } finally {
      await c.dispose();
      await quiet.close();
    }
  });
});

describe('a subscriber that does not keep up', () => {
  const event = (seq: number): ChangeEvent => ({
    seq: String(seq),
    tenantId: 't',
    tenantName: 't',
    kind: 'updated',
    entityType: 'Submodel',
    entityId: 'urn:x',
    version: seq,
    time: new Date(0),
    state: null,
  });

  it('gets the events in order while at most the bound wait, then an error, and its listener is gone', async () => {
    const hub = new ChangeHub();
    const iterator = listen(hub, () => true, 3);
    hub.emit([event(1), event(2), event(3)]);
    expect((await iterator.next()).value.seq).toBe('1');
    hub.emit([event(4), event(5)]);
    expect(hub.size).toBe(0);
    expect((await iterator.next()).value.seq).toBe('2');
    expect((await iterator.next()).value.seq).toBe('3');
    expect((await iterator.next()).value.seq).toBe('4');
    await expect(iterator.next()).rejects.toThrow(/More than 3 change events waited/);
    expect(MAX_WAITING_EVENTS).toBe(1_000);
  });

  it('hands an event straight to a waiting reader, and ends cleanly on return', async () => {
    const hub = new ChangeHub();
    const iterator = listen(hub, (e) => e.version % 2 === 0, 10);
    const next = iterator.next();
    hub.emit([event(1), event(2)]);
    expect((await next).value.seq).toBe('2');
    const pending = iterator.next();
    await iterator.return!();
    expect(await pending).toEqual({ value: undefined, done: true });
    expect(hub.size).toBe(0);
  });
});
