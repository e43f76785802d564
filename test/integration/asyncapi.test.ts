import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import Ajv from 'ajv';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { CHANGE_KINDS, EVENT_OBJECTS, EventEntityType, topicOf } from '../../src/common/events';
import { ChangeEvent, messageOf } from '../../src/events/change-event';
import { TestServer, json, startTestServer, testEvents } from '../support/server';

/**
 * The AsyncAPI document of change events (`{tenant_url}/api/v3.0/asyncapi.json`): valid AsyncAPI 3.0 (the official
 * JSON Schema, vendored in test/fixtures), its channels the publisher's topics, and real event envelopes valid
 * against its message payloads.
 */
const ASYNCAPI_SCHEMA = JSON.parse(fs.readFileSync(path.join(__dirname, '../fixtures/asyncapi-3.0.0-without-id.json'), 'utf8'));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'), { events: { ...testEvents, mqttUrl: 'mqtt://user:secret@broker.example.com:1883' } });
});
afterAll(() => server?.close());

const ajv = () => new Ajv({ strict: false, validateFormats: false, allErrors: true });

describe('the AsyncAPI document', () => {
  it('is valid AsyncAPI 3.0, names the broker without its credentials, and has a channel for every topic', async () => {
    const res = await fetch(`${server.api('plant-a')}/asyncapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const doc = await json(res);
    const validate = ajv().compile(ASYNCAPI_SCHEMA);
    expect(validate(doc), JSON.stringify(validate.errors?.slice(0, 5))).toBe(true);
    expect(doc.asyncapi).toBe('3.0.0');
    expect(doc.servers.broker).toMatchObject({ host: 'broker.example.com:1883', protocol: 'mqtt' });
    expect(JSON.stringify(doc)).not.toMatch(/secret/);
    const addresses = Object.values(doc.channels as Record<string, { address: string }>).map((c) => c.address).sort();
    const topics = (Object.keys(EVENT_OBJECTS) as EventEntityType[]).flatMap((entityType) => CHANGE_KINDS.map((kind) => topicOf({ tenantName: 'plant-a', entityType, kind }))).sort();
    expect(addresses).toEqual(topics);
    for (const operation of Object.values(doc.operations as Record<string, { action: string; bindings: { mqtt: { qos: number } } }>)) {
      expect(operation).toMatchObject({ action: 'receive', bindings: { mqtt: { qos: 1 } } });
    }
  });

  it("describes the envelopes the publisher sends, full and slim, for each object and kind", async () => {
    const doc = await json(await fetch(`${server.api('plant-a')}/asyncapi.json`));
    const checker = ajv();
    checker.addSchema(doc, 'asyncapi');
    const tenantUrl = `${server.url}/tenants/plant-a`;
    for (const entityType of Object.keys(EVENT_OBJECTS) as EventEntityType[]) {
      for (const kind of CHANGE_KINDS) {
        const name = Object.entries(doc.channels as Record<string, { address: string }>).find(([, c]) => c.address === topicOf({ tenantName: 'plant-a', entityType, kind }))![0];
        const validate = checker.getSchema(`asyncapi#/components/messages/${name}/payload`)!;
        const event: ChangeEvent = {
          seq: '42', tenantId: '00000000-0000-0000-0000-000000000000', tenantName: 'plant-a', kind, entityType, entityId: 'urn:x', version: 2, time: new Date(),
          state: kind === 'deleted' ? null : { modelType: entityType, id: 'urn:x' },
        };
        for (const limit of [1_000_000, 10]) {
          const { bytes, slim } = await messageOf(event, tenantUrl, limit);
          const envelope = JSON.parse(gunzipSync(bytes).toString('utf8'));
          expect(slim).toBe(limit === 10);
          expect(validate(envelope), `${name} ${slim ? 'slim' : 'full'}: ${JSON.stringify(validate.errors)}`).toBe(true);
          // The document refuses what is not such an event: another type, a missing member.
          expect(validate({ ...envelope, type: 'io.asset-platform.other' })).toBe(false);
          const { subject: _subject, ...withoutSubject } = envelope;
          expect(validate(withoutSubject)).toBe(false);
          if (slim) expect(envelope.dataschema).toBe(`${tenantUrl}/api/v3.0/asyncapi.json#/components/schemas/SlimEvent`);
        }
      }
    }
  });

  it('is served for any tenant name, as the OpenAPI document (it describes, holds no data); without MQTT it names no server', async () => {
    const other = await startTestServer(inject('databaseUrl'));
    try {
      const doc = await json(await fetch(`${other.api('no-such-tenant')}/asyncapi.json`));
      expect(doc.servers).toBeUndefined();
      expect(doc.info.title).toBe('Change events of tenant no-such-tenant');
      expect(Object.values(doc.channels as Record<string, { address: string }>)[0].address).toMatch(/^aas-repository\/no-such-tenant\/shells\//);
    } finally {
      await other.close();
    }
  });
});
