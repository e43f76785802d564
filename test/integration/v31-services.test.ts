import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { envelopeOf } from '../../src/events/change-event';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sendJson, startTestServer } from '../support/server';
import { prop, technicalData } from '../support/technical-data';

/**
 * V3.1 content through the services beside the repositories: the implicit registries and discovery, explicit
 * registry and discovery instances, the query language (of the repositories and of the registries), the search
 * indexes, and change events. The content is stored through `/api/v3.1` and by import of a V3.1 document; each
 * service answers it unchanged through `/api/v3.1`, and mapped down with `X-AAS-Version-Mapped: 3.1->3.0` through
 * `/api/v3.0` where the service answers documents of the metamodel.
 */

let server: TestServer;
let tenant: TenantEntity;
let v30: string;
let v31: string;

const MAPPED = 'x-aas-version-mapped';

const send = sendJson;
const assetId = (name: string, value: string) => Buffer.from(JSON.stringify({ name, value })).toString('base64url');
const smRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const gref = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

/** Written through /api/v3.1: a shell of kind Role with a hyphen in its idShort and specific asset ids. */
const ROLE_SHELL = 'urn:v31svc:shell:role';
/** Written through /api/v3.1: what V3.0 lacks in a submodel (an Entity without entityType, a File without contentType). */
const V31_SM = 'urn:v31svc:sm:1';
/** Imported from a V3.1 document: a shell of kind Role and its Technical Data submodel (with a Blob without contentType). */
const IMPORTED_SHELL = 'urn:v31svc:shell:imported';
const IMPORTED_SM = 'urn:v31svc:sm:td';
/** A V3.0 shell beside them. */
const PLAIN_SHELL = 'urn:v31svc:shell:plain';

const roleShell = {
  modelType: 'AssetAdministrationShell',
  id: ROLE_SHELL,
  idShort: 'Robot-Arm',
  assetInformation: {
    assetKind: 'Role',
    globalAssetId: 'urn:v31svc:asset:role',
    specificAssetIds: [{ name: 'serial-no', value: 'SN-1' }],
    assetType: 'urn:v31svc:type:robot',
  },
  submodels: [smRef(V31_SM)],
};

const v31Submodel = {
  modelType: 'Submodel',
  id: V31_SM,
  idShort: 'Op-Data',
  semanticId: gref('urn:v31svc:semantic:opdata'),
  submodelElements: [
    { modelType: 'Property', idShort: 'Max-Temperature', valueType: 'xs:int', value: '80', category: 'MEASUREMENT' },
    { modelType: 'Entity', idShort: 'Station' },
    { modelType: 'File', idShort: 'Manual', value: 'https://example.com/manual.pdf' },
  ],
};

const importedShell = {
  modelType: 'AssetAdministrationShell',
  id: IMPORTED_SHELL,
  idShort: 'Imported',
  assetInformation: { assetKind: 'Role', globalAssetId: 'urn:v31svc:asset:imported', specificAssetIds: [{ name: 'serial-no', value: 'SN-2' }] },
  submodels: [smRef(IMPORTED_SM)],
};

const importedSubmodel = (() => {
  const td = technicalData(IMPORTED_SM, 'ACME-V31', [['ECLASS', '13.0', '36-41-01-01']], [prop('MaxPressure', '0173-1#02-AAB001#001', '16', 'xs:double')]) as Record<string, unknown>;
  (td.submodelElements as unknown[]).push({ modelType: 'Blob', idShort: 'Picture', value: 'AAEC' });
  return td;
})();

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: true, eventsEnabled: true });
  v30 = server.api(tenant.name);
  v31 = v30.replace(/\/api\/v3\.0$/, '/api/v3.1');
  for (const [path, doc] of [
    ['submodels', v31Submodel],
    ['shells', roleShell],
  ] as const) {
    const created = await send(`${v31}/${path}`, 'POST', doc);
    expect(created.status, await created.clone().text()).toBe(201);
  }
  const upload = new FormData();
  const doc = { assetAdministrationShells: [importedShell], submodels: [importedSubmodel] };
  upload.append('file', new Blob([JSON.stringify(doc)], { type: 'application/json' }), 'v31.json');
  const imported = await fetch(`${v31}/upload`, { method: 'POST', body: upload });
  expect(imported.status, await imported.clone().text()).toBe(200);
  expect(
    (await send(`${v30}/shells`, 'POST', { modelType: 'AssetAdministrationShell', id: PLAIN_SHELL, idShort: 'Plain', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:v31svc:asset:plain' } })).status,
  ).toBe(201);
});
afterAll(() => server?.close());

describe('implicit registries', () => {
  it('a shell descriptor holds the V3.1 content as stored through V3.1, mapped and marked through V3.0', async () => {
    for (const id of [ROLE_SHELL, IMPORTED_SHELL]) {
      const stored = await json(fetch(`${v31}/shells/${b64(id)}`));
      const through31 = await fetch(`${v31}/shell-descriptors/${b64(id)}`);
      expect(through31.status).toBe(200);
      expect(through31.headers.get(MAPPED)).toBeNull();
      const d31 = await json(through31);
      expect(d31).toMatchObject({ id, idShort: stored.idShort, assetKind: 'Role', globalAssetId: stored.assetInformation.globalAssetId, specificAssetIds: stored.assetInformation.specificAssetIds });
      const through30 = await fetch(`${v30}/shell-descriptors/${b64(id)}`);
      expect(through30.headers.get(MAPPED)).toBe('3.1->3.0');
      const d30 = await json(through30);
      expect(d30.assetKind).toBe('NotApplicable');
      expect({ ...d30, assetKind: 'Role' }).toEqual(d31);
      // A client that keeps the registry in step PUTs back what it read, in its version: nothing to change.
      expect((await send(`${v31}/shell-descriptors/${b64(id)}`, 'PUT', d31)).status).toBe(204);
      expect((await send(`${v30}/shell-descriptors/${b64(id)}`, 'PUT', d30)).status).toBe(204);
    }
    const d31 = await json(fetch(`${v31}/shell-descriptors/${b64(ROLE_SHELL)}`));
    expect(d31.idShort).toBe('Robot-Arm');
    expect(d31.assetType).toBe('urn:v31svc:type:robot');
    expect(d31.submodelDescriptors.map((s: { id: string; idShort: string }) => [s.id, s.idShort])).toEqual([[V31_SM, 'Op-Data']]);
    // A V3.0 shell's descriptor is not marked.
    expect((await fetch(`${v30}/shell-descriptors/${b64(PLAIN_SHELL)}`)).headers.get(MAPPED)).toBeNull();
  });

  it('lists and filters shell descriptors by assetKind Role through V3.1; V3.0 lists them mapped', async () => {
    const list31 = await fetch(`${v31}/shell-descriptors?assetKind=Role`);
    expect(list31.status).toBe(200);
    expect((await json(list31)).result.map((d: { id: string }) => d.id)).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
    const all30 = await fetch(`${v30}/shell-descriptors`);
    expect(all30.headers.get(MAPPED)).toBe('3.1->3.0');
    const kinds = Object.fromEntries((await json(all30)).result.map((d: { id: string; assetKind: string }) => [d.id, d.assetKind]));
    expect(kinds).toMatchObject({ [ROLE_SHELL]: 'NotApplicable', [IMPORTED_SHELL]: 'NotApplicable', [PLAIN_SHELL]: 'Instance' });
    // V3.0 has no Role: a filter by it is a bad request there.
    expect((await fetch(`${v30}/shell-descriptors?assetKind=Role`)).status).toBe(400);
  });

  it('submodel descriptors of V3.1 submodels (a hyphen in the idShort) are the same through both versions', async () => {
    const d31 = await json(fetch(`${v31}/submodel-descriptors/${b64(V31_SM)}`));
    expect(d31).toMatchObject({ id: V31_SM, idShort: 'Op-Data', semanticId: v31Submodel.semanticId });
    expect(await json(fetch(`${v30}/submodel-descriptors/${b64(V31_SM)}`))).toEqual(d31);
    expect(await json(fetch(`${v31}/shell-descriptors/${b64(ROLE_SHELL)}/submodel-descriptors/${b64(V31_SM)}`))).toEqual(d31);
    const listed = (await json(fetch(`${v31}/submodel-descriptors?semanticId=${b64(JSON.stringify(v31Submodel.semanticId))}`))).result;
    expect(listed).toEqual([d31]);
  });

  it("a descriptor's endpoint reads the shell", async () => {
    const d31 = await json(fetch(`${v31}/shell-descriptors/${b64(ROLE_SHELL)}`));
    const href: string = d31.endpoints[0].protocolInformation.href;
    const viaEndpoint = await json(fetch(href.replace('/api/v3.0/', '/api/v3.1/')));
    expect(viaEndpoint).toEqual(roleShell);
  });
});

describe('implicit discovery', () => {
  it('looks up by V3.1 asset ids and by assetKind Role through V3.1', async () => {
    const ids = async (url: string) => (await json(fetch(url))).result;
    expect(await ids(`${v31}/lookup/shells?assetKind=Role`)).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
    // V3.0 has no Role; its NotApplicable is matched against the stored kind.
    expect((await fetch(`${v30}/lookup/shells?assetKind=Role`)).status).toBe(400);
    expect(await ids(`${v30}/lookup/shells?assetKind=NotApplicable`)).toEqual([]);
    expect(await ids(`${v31}/lookup/shells?assetIds=${assetId('serial-no', 'SN-1')}`)).toEqual([ROLE_SHELL]);
    expect(await ids(`${v30}/lookup/shells?assetIds=${assetId('serial-no', 'SN-2')}`)).toEqual([IMPORTED_SHELL]);
    expect(await json(fetch(`${v31}/lookup/shells/${b64(ROLE_SHELL)}`))).toEqual([
      { name: 'globalAssetId', value: 'urn:v31svc:asset:role' },
      { name: 'serial-no', value: 'SN-1' },
    ]);
    const byLink = await send(`${v31}/lookup/shellsByAssetLink`, 'POST', [{ name: 'serial-no', value: 'SN-2' }]);
    expect((await json(byLink)).result).toEqual([IMPORTED_SHELL]);
  });
});

describe('explicit registry and discovery instances through /api/v3.1', () => {
  it('store a descriptor with V3.1 content and V3.1 endpoints as written, and give it back unchanged', async () => {
    await server.services.registryInstances.create(tenant, { name: 'v31svc-reg', kind: 'aas-registry' });
    const base = `${v31.replace(/\/api\/v3\.1$/, '')}/v31svc-reg/api/v3.1`;
    const descriptor = {
      id: 'urn:v31svc:desc:1',
      idShort: 'Robot-Arm',
      assetKind: 'Role',
      globalAssetId: 'urn:v31svc:asset:desc',
      specificAssetIds: [{ name: 'serial-no', value: 'SN-9' }],
      endpoints: [{ interface: 'AAS-3.1', protocolInformation: { href: `${v31}/shells/${b64(ROLE_SHELL)}`, endpointProtocol: 'HTTP', endpointProtocolVersion: ['1.1'] } }],
      submodelDescriptors: [
        {
          id: V31_SM,
          idShort: 'Op-Data',
          semanticId: v31Submodel.semanticId,
          endpoints: [{ interface: 'SUBMODEL-3.1', protocolInformation: { href: `${v31}/submodels/${b64(V31_SM)}`, endpointProtocol: 'HTTP', endpointProtocolVersion: ['1.1'] } }],
        },
      ],
    };
    const created = await send(`${base}/shell-descriptors`, 'POST', descriptor);
    expect(created.status, JSON.stringify(await created.clone().json())).toBe(201);
    const through31 = await fetch(`${base}/shell-descriptors/${b64('urn:v31svc:desc:1')}`);
    expect(through31.headers.get(MAPPED)).toBeNull();
    expect(await json(through31)).toEqual(descriptor);
    expect((await json(fetch(`${base}/shell-descriptors?assetKind=Role`))).result).toEqual([descriptor]);
    expect(await json(fetch(`${base}/shell-descriptors/${b64('urn:v31svc:desc:1')}/submodel-descriptors/${b64(V31_SM)}`))).toEqual(descriptor.submodelDescriptors[0]);
    // Through V3.0: Role read as NotApplicable, marked; the rest as stored.
    const through30 = await fetch(`${base.replace('/api/v3.1', '/api/v3.0')}/shell-descriptors/${b64('urn:v31svc:desc:1')}`);
    expect(through30.headers.get(MAPPED)).toBe('3.1->3.0');
    expect(await json(through30)).toEqual({ ...descriptor, assetKind: 'NotApplicable' });
    // Its endpoint reads the shell through V3.1, as stored.
    expect(await json(fetch(descriptor.endpoints[0].protocolInformation.href))).toEqual(roleShell);
    // A V3.0 write of what only V3.1 allows is refused.
    const refused = await send(`${base.replace('/api/v3.1', '/api/v3.0')}/shell-descriptors`, 'POST', { ...descriptor, id: 'urn:v31svc:desc:2' });
    expect(refused.status).toBe(400);
    // A V3.0 client writes back what it read (NotApplicable): the stored Role stays.
    const plain = { id: 'urn:v31svc:desc:3', idShort: 'Robot', assetKind: 'Role', globalAssetId: 'urn:v31svc:asset:desc3' };
    expect((await send(`${base}/shell-descriptors`, 'POST', plain)).status).toBe(201);
    const url30 = `${base.replace('/api/v3.1', '/api/v3.0')}/shell-descriptors/${b64(plain.id)}`;
    const read30 = await json(fetch(url30));
    expect(read30.assetKind).toBe('NotApplicable');
    expect((await send(url30, 'PUT', { ...read30, idShort: 'Robot2' })).status).toBe(204);
    expect(await json(fetch(`${base}/shell-descriptors/${b64(plain.id)}`))).toEqual({ ...plain, idShort: 'Robot2' });
    // Written as Instance through V3.0, it is Instance.
    expect((await send(url30, 'PUT', { ...read30, assetKind: 'Instance' })).status).toBe(204);
    expect((await json(fetch(`${base}/shell-descriptors/${b64(plain.id)}`))).assetKind).toBe('Instance');
    // Identifiers up to 2048 characters through V3.1 (V3.1.2's schema), up to 2000 through V3.0.
    const longId = `urn:${'x'.repeat(2044)}`;
    expect((await send(`${base.replace('/api/v3.1', '/api/v3.0')}/shell-descriptors`, 'POST', { id: longId })).status).toBe(400);
    expect((await send(`${base}/shell-descriptors`, 'POST', { id: longId })).status).toBe(201);
    expect((await json(fetch(`${base}/shell-descriptors/${b64(longId)}`))).id).toBe(longId);
  });

  it('a discovery instance keeps V3.1 asset links and finds them', async () => {
    await server.services.registryInstances.create(tenant, { name: 'v31svc-disco', kind: 'discovery' });
    const base = `${v31.replace(/\/api\/v3\.1$/, '')}/v31svc-disco/api/v3.1`;
    const links = [{ name: 'serial-no', value: 'SN-1', externalSubjectId: gref('urn:v31svc:maker') }];
    const created = await send(`${base}/lookup/shells/${b64(ROLE_SHELL)}`, 'POST', links);
    expect(created.status).toBe(201);
    expect(await json(fetch(`${base}/lookup/shells/${b64(ROLE_SHELL)}`))).toEqual(links);
    expect((await json(fetch(`${base}/lookup/shells?assetIds=${assetId('serial-no', 'SN-1')}`))).result).toEqual([ROLE_SHELL]);
    // Filtered by the kind of the tenant's shell: Role through V3.1.
    expect((await json(fetch(`${base}/lookup/shells?assetKind=Role`))).result).toEqual([ROLE_SHELL]);
  });
});

describe('the query language through both versions', () => {
  const query = (base: string, target: string, condition: unknown, select?: string) => send(`${base}/query/${target}`, 'POST', { ...(select ? { $select: select } : {}), $condition: condition });
  const eq = (field: string, value: string) => ({ $eq: [{ $field: field }, { $strVal: value }] });

  it('finds shells by assetKind Role; answers them as stored through V3.1, mapped and marked through V3.0', async () => {
    const found31 = await query(v31, 'shells', eq('$aas#assetInformation.assetKind', 'Role'));
    expect(found31.status).toBe(200);
    expect(found31.headers.get(MAPPED)).toBeNull();
    const shells31 = (await json(found31)).result;
    expect(shells31.map((s: { id: string }) => s.id)).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
    expect(shells31[0]).toEqual(roleShell);
    const found30 = await query(v30, 'shells', eq('$aas#assetInformation.assetKind', 'Role'));
    expect(found30.status).toBe(200);
    expect(found30.headers.get(MAPPED)).toBe('3.1->3.0');
    const shells30 = (await json(found30)).result;
    expect(shells30.map((s: { id: string; assetInformation: { assetKind: string } }) => [s.id, s.assetInformation.assetKind])).toEqual([
      [ROLE_SHELL, 'NotApplicable'],
      [IMPORTED_SHELL, 'NotApplicable'],
    ]);
    expect((await json(query(v31, 'shells', eq('$aas#assetInformation.assetKind', 'Role'), 'id'))).result).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
    expect((await json(query(v31, 'shells', eq('$aas#idShort', 'Robot-Arm'), 'id'))).result).toEqual([ROLE_SHELL]);
    expect((await json(query(v31, 'shells', eq('$aas#assetInformation.specificAssetIds[].name', 'serial-no'), 'id'))).result).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
  });

  it('finds submodels by V3.1-only values of their elements', async () => {
    const found31 = await query(v31, 'submodels', eq('$sme.Max-Temperature#value', '80'));
    expect(found31.status).toBe(200);
    expect((await json(found31)).result).toEqual([v31Submodel]);
    expect((await json(query(v31, 'submodels', eq('$sme#idShort', 'Max-Temperature'), 'id'))).result).toEqual([V31_SM]);
    expect((await json(query(v31, 'submodels', eq('$sm#idShort', 'Op-Data'), 'id'))).result).toEqual([V31_SM]);
    const found30 = await query(v30, 'submodels', eq('$sm#idShort', 'Op-Data'));
    expect(found30.headers.get(MAPPED)).toBe('3.1->3.0');
    const sm30 = (await json(found30)).result[0];
    expect(sm30.submodelElements[1].entityType).toBe('CoManagedEntity');
    expect(sm30.submodelElements[2].contentType).toBe('application/octet-stream');
  });

  it('finds shell descriptors by assetKind Role in the implicit registry, marked through V3.0', async () => {
    const found31 = await query(v31, 'shell-descriptors', eq('$aasdesc#assetKind', 'Role'));
    expect(found31.status).toBe(200);
    expect(found31.headers.get(MAPPED)).toBeNull();
    const descriptors = (await json(found31)).result;
    expect(descriptors.map((d: { id: string }) => d.id)).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
    expect(descriptors[0]).toEqual(await json(fetch(`${v31}/shell-descriptors/${b64(ROLE_SHELL)}`)));
    expect((await json(query(v31, 'shell-descriptors', eq('$aasdesc#specificAssetIds[].name', 'serial-no'), 'id'))).result).toEqual([ROLE_SHELL, IMPORTED_SHELL]);
    const found30 = await query(v30, 'shell-descriptors', eq('$aasdesc#assetKind', 'Role'));
    expect(found30.headers.get(MAPPED)).toBe('3.1->3.0');
    expect((await json(found30)).result.map((d: { assetKind: string }) => d.assetKind)).toEqual(['NotApplicable', 'NotApplicable']);
    expect((await json(query(v31, 'submodel-descriptors', eq('$smdesc#idShort', 'Op-Data'), 'id'))).result).toEqual([V31_SM]);
  });
});

describe('search', () => {
  it('finds the imported V3.1 shell by its Technical Data; the shell as stored through V3.1, mapped and marked through V3.0', async () => {
    const body = { index: 'shell-classifications', system: 'ECLASS', classId: '36-41-01-01' };
    const found31 = await send(`${v31}/search`, 'POST', body);
    expect(found31.status).toBe(200);
    expect(found31.headers.get(MAPPED)).toBeNull();
    const stored = await json(fetch(`${v31}/shells/${b64(IMPORTED_SHELL)}`));
    expect((await json(found31)).result).toEqual([{ shell: stored, submodelIds: [IMPORTED_SM] }]);
    const found30 = await send(`${v30}/search`, 'POST', body);
    expect(found30.headers.get(MAPPED)).toBe('3.1->3.0');
    const hit30 = (await json(found30)).result[0];
    expect(hit30.shell.assetInformation.assetKind).toBe('NotApplicable');
    const ids = await send(`${v31}/search`, 'POST', { index: 'technical-properties', semanticId: '0173-1#02-AAB001#001', op: '>=', value: 16, select: 'id' });
    expect((await json(ids)).result).toEqual([IMPORTED_SHELL]);
  });
});

describe('change events', () => {
  it('an event of V3.1 content holds its V3.1 JSON, as /api/v3.1 answers it', async () => {
    const events = await server.dataSource.query(`SELECT entity_id, kind, payload::text AS payload FROM outbox WHERE tenant_id = $1 AND events ORDER BY seq`, [tenant.id]);
    const payloadOf = (id: string) => {
      const row = events.find((e: { entity_id: string; kind: string }) => e.entity_id === id && e.kind === 'created');
      expect(row, id).toBeDefined();
      return JSON.parse(row.payload);
    };
    for (const [id, path] of [
      [V31_SM, 'submodels'],
      [ROLE_SHELL, 'shells'],
      [IMPORTED_SHELL, 'shells'],
      [IMPORTED_SM, 'submodels'],
    ]) {
      expect(payloadOf(id), id).toEqual(await json(fetch(`${v31}/${path}/${b64(id)}${path === 'submodels' ? '?extent=withBlobValue' : ''}`)));
    }
    expect(payloadOf(V31_SM)).toEqual(v31Submodel);
    // A V3.1 write of an update: the event holds the V3.1 document.
    const changed = { ...v31Submodel, submodelElements: [...v31Submodel.submodelElements, { modelType: 'Blob', idShort: 'Raw' }] };
    expect((await send(`${v31}/submodels/${b64(V31_SM)}`, 'PUT', changed)).status).toBe(204);
    const [updated] = await server.dataSource.query(`SELECT payload::text AS payload FROM outbox WHERE tenant_id = $1 AND entity_id = $2 AND kind = 'updated' ORDER BY seq DESC LIMIT 1`, [tenant.id, V31_SM]);
    expect(JSON.parse(updated.payload)).toEqual(changed);
    const envelope = envelopeOf(
      { seq: '1', tenantId: tenant.id, tenantName: tenant.name, kind: 'updated', entityType: 'Submodel', entityId: V31_SM, version: 2, time: new Date(), state: JSON.parse(updated.payload) },
      v30.replace(/\/api\/v3\.0$/, ''),
    );
    expect(envelope.data).toEqual(changed);
  });
});
