import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChangeEvent, MAX_MESSAGE_BYTES, messageOf, topicOf } from '../../src/events/change-event';
import { FreshDatabase, freshDatabase } from '../support/fresh-database';
import { Broker, Received, eventually, startBroker, subscribe } from '../support/mqtt';
import { TestServer, b64, json, sampleShell, startTestServer, testEvents } from '../support/server';
import { PATIENCE_MS, eventually as waitFor } from '../support/timing';

/**
 * Change events end to end (issue 12): the server's outbox publisher on a database of its own, a Mosquitto broker
 * of the test's own, and MQTT subscribers. What arrives is compared with what the REST API committed.
 */
let database: FreshDatabase;
let broker: Broker;
let server: TestServer;

const withEvents = (mqttUrl: string) => ({ events: { ...testEvents, publish: true, mqttUrl, pollMs: 100 } });

beforeAll(async () => {
  [database, broker] = await Promise.all([freshDatabase('events'), startBroker()]);
  server = await startTestServer(database.url, withEvents(broker.url));
}, 120_000);

afterAll(async () => {
  await server?.close();
  await broker?.remove();
  await database?.drop();
});

const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });

const submodel = (id: string, value: string, extra: Record<string, unknown> = {}) => ({
  modelType: 'Submodel',
  id,
  idShort: 'S',
  submodelElements: [{ modelType: 'Property', idShort: 'P', valueType: 'xs:string', value }],
  ...extra,
});

/** Waits until `check` holds (polled), or fails saying `what`: patient, as a loaded machine delays deliveries. */
const until = (check: () => Promise<boolean>, what: string) => waitFor(check, what, PATIENCE_MS, 50);

/** The events of `subject`, in arrival order. */
const of = (received: Received[], subject: string) => received.filter((r) => r.envelope.subject === subject);

describe('change events over MQTT', () => {
  it('delivers exactly the committed changes of an opted-in tenant, in order per object, as gzipped CloudEvents', async () => {
    const on = await server.createTenant({ showcase: true, eventsEnabled: true });
    const off = await server.createTenant({ showcase: true });
    const topics = (tenant: string) => [`aas-repository/${tenant}/shells/+`, `sm-repository/${tenant}/submodels/+`, `cd-repository/${tenant}/conceptDescriptions/+`];
    const sub = await subscribe(broker.url, [...topics(on.name), ...topics(off.name)]);
    try {
      const api = server.api(on.name);
      const shellId = 'urn:events:shell:1';
      const smId = 'urn:events:sm:1';
      expect((await send('POST', `${api}/shells`, sampleShell(shellId))).status).toBe(201);
      expect((await send('POST', `${api}/submodels`, submodel(smId, 'a'))).status).toBe(201);
      expect((await send('PUT', `${api}/submodels/${b64(smId)}`, submodel(smId, 'b'))).status).toBe(204);
      // A submodel-level value change is an `updated` of the submodel.
      expect((await send('PATCH', `${api}/submodels/${b64(smId)}/$value`, { P: 'c' })).status).toBe(204);
      const smNow = await json(await fetch(`${api}/submodels/${b64(smId)}`));
      // Element-level changes fire nothing (platform spec, Events 4).
      expect((await send('PATCH', `${api}/submodels/${b64(smId)}/submodel-elements/P/$value`, 'd')).status).toBe(204);
      expect((await json(await fetch(`${api}/submodels/${b64(smId)}/submodel-elements/P/$value`)))).toBe('d');
      // Writes that fail publish nothing: a stale If-Match, an invalid document.
      expect((await send('PUT', `${api}/submodels/${b64(smId)}`, submodel(smId, 'x'), { 'if-match': '"stale"' })).status).toBe(412);
      expect((await send('PUT', `${api}/shells/${b64(shellId)}`, { ...sampleShell(shellId), assetInformation: 7 })).status).toBe(400);
      const shellNow = await json(await fetch(`${api}/shells/${b64(shellId)}`));
      expect((await send('DELETE', `${api}/shells/${b64(shellId)}`)).status).toBe(204);
      // The tenant that did not opt in: its writes publish nothing.
      expect((await send('POST', `${server.api(off.name)}/shells`, sampleShell('urn:events:shell:off'))).status).toBe(201);

      await eventually(() => sub.received.length >= 5, 10_000, () => JSON.stringify(sub.received.map((r) => r.topic)));
      // Time for anything that should not come to come.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const shellEvents = of(sub.received, shellId);
      const smEvents = of(sub.received, smId);
      expect(sub.received).toHaveLength(5);
      expect(shellEvents.map((r) => r.topic)).toEqual([`aas-repository/${on.name}/shells/created`, `aas-repository/${on.name}/shells/deleted`]);
      expect(smEvents.map((r) => r.topic)).toEqual([1, 2, 3].map((i) => `sm-repository/${on.name}/submodels/${i === 1 ? 'created' : 'updated'}`));
      expect(smEvents.map((r) => r.envelope.objectversion)).toEqual([1, 2, 3]);
      expect(smEvents.map((r) => r.envelope.data.submodelElements[0].value)).toEqual(['a', 'b', 'c']);
      // The payload is the object as the repository answers it.
      const { etag: _shellTag, ...shellState } = shellEvents[0].envelope.data;
      expect(shellEvents[0].envelope.data).toEqual(shellNow);
      expect(shellState.id).toBe(shellId);
      expect(smEvents[2].envelope.data).toEqual(smNow);
      expect(shellEvents[1].envelope.data).toBeNull();
      // CloudEvents 1.0 envelope, and the MQTT 5 properties that say what the bytes are.
      const created = shellEvents[0];
      expect(created.envelope).toMatchObject({
        specversion: '1.0',
        type: 'io.asset-platform.shell.created',
        source: `${server.url}/tenants/${on.name}/api/v3.0/shells`,
        subject: shellId,
        datacontenttype: 'application/json',
        dataschema: expect.stringMatching(/aas\.json#\/definitions\/AssetAdministrationShell$/),
        tenant: on.name,
        slim: false,
      });
      expect(Date.parse(created.envelope.time)).not.toBeNaN();
      expect(created.properties).toMatchObject({ contentType: 'application/cloudevents+json', userProperties: { 'content-encoding': 'gzip' } });
      // Event ids are the outbox ids: unique, increasing in commit order. MQTT orders messages per topic only, so
      // receipt order is checked per object (what the server promises), not across objects.
      const ids = sub.received.map((r) => BigInt(r.envelope.id));
      expect(new Set(ids).size).toBe(ids.length);
      for (const subject of new Set(sub.received.map((r) => r.envelope.subject))) {
        const ofObject = sub.received.filter((r) => r.envelope.subject === subject).map((r) => BigInt(r.envelope.id));
        expect([...ofObject].sort((a, b) => (a < b ? -1 : 1))).toEqual(ofObject);
      }
    } finally {
      await sub.close();
    }
  });

  it('keeps commit order per object under concurrent writes to it', async () => {
    const tenant = await server.createTenant({ showcase: true, eventsEnabled: true });
    const api = server.api(tenant.name);
    const sub = await subscribe(broker.url, [`sm-repository/${tenant.name}/submodels/+`]);
    try {
      const ids = ['urn:events:order:1', 'urn:events:order:2', 'urn:events:order:3'];
      for (const id of ids) expect((await send('POST', `${api}/submodels`, submodel(id, '0'))).status).toBe(201);
      const writes = ids.flatMap((id) => Array.from({ length: 20 }, (_, i) => send('PUT', `${api}/submodels/${b64(id)}`, submodel(id, String(i + 1)))));
      expect((await Promise.all(writes)).map((r) => r.status)).toEqual(writes.map(() => 204));
      await eventually(() => sub.received.length >= 63, 15_000, () => `${sub.received.length} of 63`);
      for (const id of ids) {
        const versions = of(sub.received, id).map((r) => r.envelope.objectversion);
        expect(versions).toEqual(Array.from({ length: 21 }, (_, i) => i + 1));
        // Each event's state is the state of its version: the last one is what the repository holds.
        const stored = await json(await fetch(`${api}/submodels/${b64(id)}`));
        expect(of(sub.received, id).at(-1)!.envelope.data).toEqual(stored);
      }
    } finally {
      await sub.close();
    }
  });

  it('sends a slim event for a submodel whose gzipped event exceeds 512 kB, with the URL to read it', async () => {
    const tenant = await server.createTenant({ showcase: true, eventsEnabled: true });
    const api = server.api(tenant.name);
    const sub = await subscribe(broker.url, [`sm-repository/${tenant.name}/submodels/+`]);
    try {
      // About 2 MB of JSON that gzip cannot shrink below 512 kB: random hex values.
      const big = {
        modelType: 'Submodel',
        id: 'urn:events:big',
        submodelElements: Array.from({ length: 2_000 }, (_, i) => ({
          modelType: 'Property',
          idShort: `P${i}`,
          valueType: 'xs:string',
          value: Buffer.from(Array.from({ length: 500 }, () => Math.floor(Math.random() * 256))).toString('hex'),
        })),
      };
      expect(JSON.stringify(big).length).toBeGreaterThan(2_000_000);
      expect((await send('POST', `${api}/submodels`, big)).status).toBe(201);
      expect((await send('POST', `${api}/submodels`, submodel('urn:events:small', 'x'))).status).toBe(201);
      await eventually(() => sub.received.length >= 2, 15_000, () => `${sub.received.length} of 2`);
      const [slim] = of(sub.received, 'urn:events:big');
      const [full] = of(sub.received, 'urn:events:small');
      expect(slim.bytes).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
      expect(slim.envelope).toMatchObject({ slim: true, type: 'io.asset-platform.submodel.created', dataschema: expect.stringMatching(/asyncapi\.json#\/components\/schemas\/SlimEvent$/) });
      expect(slim.envelope.data).toMatchObject({ id: 'urn:events:big', kind: 'created', version: 1, url: `${api}/submodels/${b64('urn:events:big')}` });
      expect(slim.envelope.data.fullBytes).toBeGreaterThan(MAX_MESSAGE_BYTES);
      const read = await fetch(slim.envelope.data.url);
      expect(read.status).toBe(200);
      expect((await json(read)).submodelElements).toHaveLength(2_000);
      expect(full.envelope.slim).toBe(false);
    } finally {
      await sub.close();
    }
  });
});

describe('delivery when the broker is away', () => {
  it('keeps every write succeeding while the broker is stopped, and delivers all 200 events when it returns', async () => {
    const own = await startBroker();
    const db = await freshDatabase('events_broker');
    const replica = await startTestServer(db.url, withEvents(own.url));
    const tenant = await replica.createTenant({ showcase: true, eventsEnabled: true });
    const api = replica.api(tenant.name);
    // A persistent session: what the broker takes while this subscriber reconnects waits for it.
    const sub = await subscribe(own.url, [`aas-repository/${tenant.name}/shells/+`], `events-test-${tenant.name}`);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 200; i++) {
        if (i === 50) await own.stop();
        statuses.push((await send('POST', `${api}/shells`, sampleShell(`urn:events:down:${i}`))).status);
      }
      expect(statuses.filter((s) => s !== 201)).toEqual([]);
      const beforeRestart = new Set(sub.received.map((r) => r.envelope.subject)).size;
      expect(beforeRestart).toBeLessThan(200);
      await own.start();
      const subjects = new Set<string>();
      await eventually(
        () => {
          for (const r of sub.received) subjects.add(r.envelope.subject);
          return subjects.size === 200;
        },
        60_000,
        () => `${subjects.size} of 200`,
      ).catch(async (err: Error) => {
        // Which events are missing, and where the outbox has them (published? leased?): a failure says why.
        const missing = Array.from({ length: 200 }, (_, i) => `urn:events:down:${i}`).filter((id) => !subjects.has(id));
        const rows = await replica.dataSource.query('SELECT seq, entity_id, mqtt_published_at, mqtt_leased_until, mqtt_leased_by FROM outbox WHERE entity_id = ANY ($1)', [missing]);
        throw new Error(`${err.message}; missing ${JSON.stringify(missing)}; their outbox rows ${JSON.stringify(rows)}`);
      });
      for (let i = 0; i < 200; i++) expect(subjects.has(`urn:events:down:${i}`)).toBe(true);
      // At least once: a repeat carries the same id; no event is invented.
      expect(new Set(sub.received.map((r) => r.envelope.id)).size).toBe(200);
    } finally {
      await sub.close();
      await replica.close();
      await own.remove();
      await db.drop();
    }
  }, 240_000);
});

describe('several replicas on one database', () => {
  it('deliver every event exactly once between them (no failures), in order per object', async () => {
    const db = await freshDatabase('events_replicas');
    const [a, b] = [await startTestServer(db.url, withEvents(broker.url)), await startTestServer(db.url, withEvents(broker.url))];
    try {
      const tenant = await a.createTenant({ showcase: true, eventsEnabled: true });
      const sub = await subscribe(broker.url, [`sm-repository/${tenant.name}/submodels/+`]);
      const ids = Array.from({ length: 10 }, (_, i) => `urn:events:replica:${i}`);
      for (const id of ids) expect((await send('POST', `${a.api(tenant.name)}/submodels`, submodel(id, '0'))).status).toBe(201);
      // 300 updates, alternating between the replicas, 10 objects.
      for (let batch = 0; batch < 300; batch += 30) {
        const writes = Array.from({ length: 30 }, (_, j) => batch + j).map((i) =>
          send('PUT', `${(i % 2 ? a : b).api(tenant.name)}/submodels/${b64(ids[i % 10])}`, submodel(ids[i % 10], String(i))));
        const answers = await Promise.all(writes);
        expect(await Promise.all(answers.map(async (r) => `${r.status} ${r.status === 204 ? "" : await r.text()}`))).toEqual(Array(30).fill("204 "));
      }
      await eventually(() => sub.received.length >= 310, 30_000, () => `${sub.received.length} of 310`);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(sub.received).toHaveLength(310);
      expect(new Set(sub.received.map((r) => r.envelope.id)).size).toBe(310);
      for (const id of ids) expect(of(sub.received, id).map((r) => r.envelope.objectversion)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
      await sub.close();
    } finally {
      await a.close();
      await b.close();
      await db.drop();
    }
  }, 240_000);
});

describe('replicas with and without MQTT on one database', () => {
  const withoutMqtt = { events: { ...testEvents, publish: true, pollMs: 100 } };

  it('leave MQTT to the replica that has it: 300 writes to both, every event on MQTT exactly once by event id', async () => {
    const db = await freshDatabase('events_mixed');
    const mqtt = await startTestServer(db.url, withEvents(broker.url));
    const plain = await startTestServer(db.url, withoutMqtt);
    try {
      const tenant = await mqtt.createTenant({ showcase: true, eventsEnabled: true });
      const sub = await subscribe(broker.url, [`aas-repository/${tenant.name}/shells/+`]);
      try {
        for (let batch = 0; batch < 300; batch += 30) {
          const writes = Array.from({ length: 30 }, (_, j) => batch + j).map((i) => send('POST', `${(i % 2 ? mqtt : plain).api(tenant.name)}/shells`, sampleShell(`urn:events:mixed:${i}`)));
          expect((await Promise.all(writes)).map((r) => r.status)).toEqual(Array(30).fill(201));
        }
        const committed: { seq: string }[] = await mqtt.dataSource.query('SELECT seq FROM outbox WHERE tenant_id = $1 ORDER BY seq', [tenant.id]);
        expect(committed).toHaveLength(300);
        await eventually(() => new Set(sub.received.map((r) => r.envelope.id)).size >= 300, 30_000, () => `${new Set(sub.received.map((r) => r.envelope.id)).size} of 300`);
        await new Promise((resolve) => setTimeout(resolve, 300));
        const ids = sub.received.map((r) => String(r.envelope.id));
        expect(ids).toHaveLength(300);
        expect([...ids].sort()).toEqual(committed.map((row) => String(row.seq)).sort());
        // Both deliveries (MQTT; push queues and subscriptions, which either replica makes) are marked for all of them.
        const [{ marked }] = await mqtt.dataSource.query('SELECT count(*)::int AS marked FROM outbox WHERE tenant_id = $1 AND published_at IS NOT NULL AND mqtt_published_at IS NOT NULL', [tenant.id]);
        expect(marked).toBe(300);
      } finally {
        await sub.close();
      }
    } finally {
      await plain.close();
      await mqtt.close();
      await db.drop();
    }
  }, 240_000);

  it('keep events waiting for MQTT while a replica with it has run lately, and prune them once none has for an hour', async () => {
    const db = await freshDatabase('events_prune');
    // Retention 0: a delivered row may go at the next prune.
    const plain = await startTestServer(db.url, { events: { ...withoutMqtt.events, retentionSeconds: 0 } });
    try {
      const tenant = await plain.createTenant({ showcase: true, eventsEnabled: true });
      const rows = () => plain.dataSource.query('SELECT seq, published_at, mqtt_published_at FROM outbox WHERE tenant_id = $1', [tenant.id]) as Promise<{ published_at: Date | null; mqtt_published_at: Date | null }[]>;
      // No replica with MQTT ever ran: delivered rows are pruned, as without this distinction.
      expect((await send('POST', `${plain.api(tenant.name)}/shells`, sampleShell('urn:events:prune:1'))).status).toBe(201);
      await until(async () => (await rows()).length === 0, 'the row pruned');
      // A replica with MQTT ran a minute ago: the row waits for it, delivered to the rest.
      await plain.dataSource.query(`INSERT INTO event_transports (name, seen_at) VALUES ('mqtt', now() - interval '1 minute')`);
      expect((await send('POST', `${plain.api(tenant.name)}/shells`, sampleShell('urn:events:prune:2'))).status).toBe(201);
      await until(async () => (await rows())[0]?.published_at != null, 'the core delivery');
      // Several prune rounds (every retention, at least every 10 s; here each round): the row stays.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await rows()).toEqual([expect.objectContaining({ mqtt_published_at: null })]);
      // None for over an hour: given up, pruned.
      await plain.dataSource.query(`UPDATE event_transports SET seen_at = now() - interval '61 minutes' WHERE name = 'mqtt'`);
      await until(async () => (await rows()).length === 0, 'the row pruned without MQTT');
    } finally {
      await plain.close();
      await db.drop();
    }
  }, 240_000);
});

describe('leases', () => {
  it('leave an event claimed by a replica that went silent to others only once its lease has run out', async () => {
    const db = await freshDatabase('events_lease');
    // A replica that writes and does not deliver (EVENTS_PUBLISH=false), then a publisher on the same database.
    const writer = await startTestServer(db.url, { events: { ...testEvents, publish: false } });
    const tenant = await writer.createTenant({ showcase: true, eventsEnabled: true });
    const api = writer.api(tenant.name);
    let publisher: TestServer | undefined;
    const sub = await subscribe(broker.url, [`aas-repository/${tenant.name}/shells/+`]);
    try {
      for (const i of [1, 2]) expect((await send('POST', `${api}/shells`, sampleShell(`urn:events:lease:${i}`))).status).toBe(201);
      // Shell 1 claimed for MQTT by a replica that went silent, its lease an hour from running out; shell 2's lease
      // ran out already. Shell 1's lease is made to run out only once the publisher has run: a loaded machine's slow
      // start cannot let it run out before.
      await writer.dataSource.query(
        `UPDATE outbox SET mqtt_leased_by = gen_random_uuid(), mqtt_leased_until = now() + CASE WHEN entity_id = 'urn:events:lease:1' THEN interval '1 hour' ELSE interval '-1 second' END`,
      );
      publisher = await startTestServer(db.url, withEvents(broker.url));
      await eventually(() => sub.received.length >= 1, 10_000, () => 'nothing delivered');
      expect(sub.received[0].envelope.subject).toBe('urn:events:lease:2');
      // Rounds of the publisher (every 100 ms) pass it by while it is leased.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(sub.received.map((r) => r.envelope.subject)).toEqual(['urn:events:lease:2']);
      const [[{ mqtt_leased_until: leasedUntil }]] = await writer.dataSource.query(
        `UPDATE outbox SET mqtt_leased_until = now() + interval '2 seconds' WHERE entity_id = 'urn:events:lease:1' RETURNING mqtt_leased_until`,
      );
      await eventually(() => sub.received.length >= 2, 10_000, () => 'the leased event never delivered');
      expect(sub.received[1].envelope.subject).toBe('urn:events:lease:1');
      // Marked delivered (right after the broker took it) only after its lease ran out, on the database's clock,
      // which the lease is on.
      let published: Date | null = null;
      await until(async () => {
        [{ mqtt_published_at: published }] = await writer.dataSource.query(`SELECT mqtt_published_at FROM outbox WHERE entity_id = 'urn:events:lease:1'`);
        return published !== null;
      }, 'the leased event marked delivered');
      expect(new Date(published!).getTime()).toBeGreaterThan(new Date(leasedUntil).getTime());
    } finally {
      await sub.close();
      await publisher?.close();
      await writer.close();
      await db.drop();
    }
  }, 240_000);
});

describe('tenants in turn', () => {
  it("deliver a tenant's events while another tenant has a large backlog, in order per object", async () => {
    const db = await freshDatabase('events_turns');
    // A replica that writes and does not deliver, then a publisher with small rounds on the same database.
    const writer = await startTestServer(db.url, { events: { ...testEvents, publish: false } });
    let publisher: TestServer | undefined;
    try {
      const [busy, quiet] = [await writer.createTenant({ showcase: true }), await writer.createTenant({ showcase: true })];
      const insert = (tenantId: string, from: number, count: number, objects: number) =>
        writer.dataSource.query(
          `INSERT INTO outbox (tenant_id, kind, entity_type, entity_id, version, payload, events)
           SELECT $1, 'updated', 'Submodel', 'urn:events:turns:' || (i % $4), i, NULL, false FROM generate_series($2::int, $2::int + $3::int - 1) i`,
          [tenantId, from, count, objects],
        );
      // 2,000 events of one tenant committed first, then the other tenant's 20 interleaved with 20 more of the first.
      await insert(busy.id, 1, 2_000, 50);
      for (let i = 0; i < 20; i++) {
        await insert(quiet.id, i, 1, 3);
        await insert(busy.id, 2_000 + i, 1, 50);
      }
      publisher = await startTestServer(db.url, { events: { ...testEvents, publish: true, pollMs: 100, batchSize: 10, retentionSeconds: 3_600 } });
      const pending = async (tenantId: string) =>
        Number((await writer.dataSource.query('SELECT count(*) AS n FROM outbox WHERE tenant_id = $1 AND published_at IS NULL', [tenantId]))[0].n);
      await until(async () => (await pending(quiet.id)) === 0, "the quiet tenant's events delivered");
      // Taken in commit order across tenants, the quiet tenant's events would have waited for all 2,000 before them.
      const [{ before }] = await writer.dataSource.query(
        `SELECT count(*)::int AS before FROM outbox WHERE tenant_id = $1 AND published_at < (SELECT max(published_at) FROM outbox WHERE tenant_id = $2)`,
        [busy.id, quiet.id],
      );
      expect(before).toBeLessThan(1_000);
      await until(async () => (await pending(busy.id)) === 0, "the busy tenant's events delivered");
      // Each object's events delivered in order: no event of an object marked before an earlier one of it.
      const [{ disorder }] = await writer.dataSource.query(
        `SELECT count(*)::int AS disorder FROM outbox a JOIN outbox b
            ON b.tenant_id = a.tenant_id AND b.entity_id = a.entity_id AND b.seq > a.seq AND b.published_at < a.published_at
          WHERE a.tenant_id = ANY ($1::uuid[])`,
        [[busy.id, quiet.id]],
      );
      expect(disorder).toBe(0);
    } finally {
      await publisher?.close();
      await writer.close();
      await db.drop();
    }
  }, 240_000);
});

describe('the transport message', () => {
  const event = (state: Record<string, unknown> | null): ChangeEvent => ({
    seq: '7',
    tenantId: '00000000-0000-0000-0000-000000000000',
    tenantName: 't',
    kind: state ? 'updated' : 'deleted',
    entityType: 'Submodel',
    entityId: 'urn:x',
    version: 3,
    time: new Date(0),
    state,
  });

  it('is the same whether the state is given as an object or as the JSON text the outbox stores', async () => {
    const state = { modelType: 'Submodel', id: 'urn:x', idShort: 'é"\\' };
    const { gunzipSync } = await import('node:zlib');
    const a = await messageOf(event(state), 'http://h/t');
    const b = await messageOf(event(state), 'http://h/t', MAX_MESSAGE_BYTES, JSON.stringify(state));
    expect(JSON.parse(gunzipSync(b.bytes).toString())).toEqual(JSON.parse(gunzipSync(a.bytes).toString()));
    const deleted = await messageOf(event(null), 'http://h/t', MAX_MESSAGE_BYTES, null);
    expect(JSON.parse(gunzipSync(deleted.bytes).toString()).data).toBeNull();
    expect(topicOf(event(null))).toBe('sm-repository/t/submodels/deleted');
  });

  it('turns slim at the limit it is given, and says so', async () => {
    const state = { modelType: 'Submodel', id: 'urn:x', idShort: 'x'.repeat(10_000) };
    const { gunzipSync } = await import('node:zlib');
    expect((await messageOf(event(state), 'http://h/t', 10_000)).slim).toBe(false);
    const noise = Buffer.from(Array.from({ length: 3_000 }, () => Math.floor(Math.random() * 256))).toString('hex');
    const slim = await messageOf(event({ ...state, description: [{ language: 'en', text: noise }] }), 'http://h/t', 2_000);
    expect(slim.slim).toBe(true);
    expect(JSON.parse(gunzipSync(slim.bytes).toString())).toMatchObject({ slim: true, data: { id: 'urn:x', kind: 'updated', version: 3, url: 'http://h/t/api/v3.0/submodels/dXJuOng' } });
  });
});
