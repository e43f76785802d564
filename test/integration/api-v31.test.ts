import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { TestServer, b64, json, sampleShell, sendJson, startTestServer } from '../support/server';

/**
 * The AAS API V3.1 at `{tenant_url}/api/v3.1`, beside V3.0 over the same data: a smoke test of each service through
 * V3.1, the profiles `/description` claims in each version, serialization by path and by `Accept` profile, and a
 * document that needs V3.1 read through both versions (served as stored through V3.1; mapped down and marked
 * `X-AAS-Version-Mapped: 3.1->3.0` through V3.0).
 */

let server: TestServer;
let tenant: TenantEntity;
let v30: string;
let v31: string;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
  tenant = await server.createTenant({ showcase: true });
  v30 = server.api(tenant.name);
  v31 = v30.replace(/\/api\/v3\.0$/, '/api/v3.1');
});
afterAll(() => server?.close());

const send = sendJson;

const submodel = (id: string, elements: unknown[] = []) => ({ modelType: 'Submodel', id, idShort: 'Data', submodelElements: elements });
const property = (idShort: string, value = '1') => ({ modelType: 'Property', idShort, valueType: 'xs:int', value });

describe('the services through /api/v3.1', () => {
  it('AAS Repository: creates, reads, lists and deletes a shell, Location below /api/v3.1; V3.0 sees the same shell', async () => {
    const shell = sampleShell('urn:v31:shell:1');
    const created = await send(`${v31}/shells`, 'POST', shell);
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${v31}/shells/${b64('urn:v31:shell:1')}`);
    expect(await json(fetch(`${v31}/shells/${b64('urn:v31:shell:1')}`))).toEqual(shell);
    expect(await json(fetch(`${v30}/shells/${b64('urn:v31:shell:1')}`))).toEqual(shell);
    expect((await json(fetch(`${v31}/shells`))).result.map((s: { id: string }) => s.id)).toContain('urn:v31:shell:1');
    expect(await json(fetch(`${v31}/shells/${b64('urn:v31:shell:1')}/asset-information`))).toEqual(shell.assetInformation);
    expect((await send(`${v31}/shells/${b64('urn:v31:shell:1')}`, 'DELETE')).status).toBe(204);
    expect((await fetch(`${v30}/shells/${b64('urn:v31:shell:1')}`)).status).toBe(404);
  });

  it('Submodel Repository: a submodel and its elements, and the level V3.1 added to PATCH $metadata (V3.0 refuses it)', async () => {
    const id = b64('urn:v31:sm:1');
    expect((await send(`${v31}/submodels`, 'POST', submodel('urn:v31:sm:1', [property('Speed', '3')]))).status).toBe(201);
    expect((await json(fetch(`${v31}/submodels/${id}`))).submodelElements).toHaveLength(1);
    expect(await json(fetch(`${v31}/submodels/${id}/submodel-elements/Speed/$value`))).toBe(3);
    expect((await send(`${v31}/submodels/${id}/submodel-elements/Speed/$value`, 'PATCH', 4)).status).toBe(204);
    expect(await json(fetch(`${v30}/submodels/${id}/submodel-elements/Speed/$value`))).toBe(4);
    expect((await send(`${v31}/submodels/${id}/$metadata?level=core`, 'PATCH', { idShort: 'Renamed' })).status).toBe(204);
    expect((await json(fetch(`${v31}/submodels/${id}/$metadata`))).idShort).toBe('Renamed');
    const refused = await send(`${v30}/submodels/${id}/$metadata?level=core`, 'PATCH', { idShort: 'Again' });
    expect(refused.status).toBe(400);
    expect((await json(refused)).messages[0].text).toMatch(/level/);
  });

  it('Concept Description Repository and the query endpoints', async () => {
    const cd = { modelType: 'ConceptDescription', id: 'urn:v31:cd:1', idShort: 'Speed' };
    expect((await send(`${v31}/concept-descriptions`, 'POST', cd)).status).toBe(201);
    expect(await json(fetch(`${v31}/concept-descriptions/${b64('urn:v31:cd:1')}`))).toEqual(cd);
    const found = await send(`${v31}/query/concept-descriptions`, 'POST', { $condition: { $eq: [{ $field: '$cd#idShort' }, { $strVal: 'Speed' }] } });
    expect(found.status).toBe(200);
    expect((await json(found)).result.map((c: { id: string }) => c.id)).toEqual(['urn:v31:cd:1']);
  });

  it('implicit registries and discovery', async () => {
    expect((await send(`${v31}/shells`, 'POST', sampleShell('urn:v31:reg:1'))).status).toBe(201);
    const descriptor = await json(fetch(`${v31}/shell-descriptors/${b64('urn:v31:reg:1')}`));
    expect(descriptor.id).toBe('urn:v31:reg:1');
    const ids = await json(fetch(`${v31}/lookup/shells/${b64('urn:v31:reg:1')}`));
    expect(ids).toEqual([{ name: 'globalAssetId', value: 'urn:v31:reg:1#asset' }]);
    expect((await json(fetch(`${v31}/submodel-descriptors`))).result).toBeInstanceOf(Array);
    // Read-only through V3.1 as through V3.0.
    const write = await send(`${v31}/shell-descriptors`, 'POST', { id: 'urn:v31:nope' });
    expect(write.status).toBe(405);
    expect((await json(write)).messages[0].text).toContain('/api/v3.1/shells');
  });

  it('explicit registry instances, their Location and /description in V3.1', async () => {
    await server.services.registryInstances.create(tenant, { name: 'v31-registry', kind: 'aas-registry' });
    const base = v31.replace(/\/api\/v3\.1$/, '/v31-registry/api/v3.1');
    const created = await send(`${base}/shell-descriptors`, 'POST', { id: 'urn:v31:desc:1' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`${base}/shell-descriptors/${b64('urn:v31:desc:1')}`);
    expect((await json(fetch(`${base}/shell-descriptors/${b64('urn:v31:desc:1')}`))).id).toBe('urn:v31:desc:1');
    expect((await json(fetch(`${base}/description`))).profiles).toEqual([
      'https://admin-shell.io/aas/API/3/1/AssetAdministrationShellRegistryServiceSpecification/SSP-001',
      'https://admin-shell.io/aas/API/3/1/AssetAdministrationShellRegistryServiceSpecification/SSP-004',
    ]);
    expect((await json(fetch(`${base.replace('/api/v3.1', '/api/v3.0')}/description`))).profiles).toEqual([
      'https://admin-shell.io/aas/API/3/0/AssetAdministrationShellRegistryServiceSpecification/SSP-001',
    ]);
  });

  it('AASX File Server: a package posted through V3.1 is listed and read back', async () => {
    expect((await send(`${v31}/shells`, 'POST', sampleShell('urn:v31:pkg:1'))).status).toBe(201);
    const exported = await fetch(`${v31}/serialization?aasIds=${b64('urn:v31:pkg:1')}`, { headers: { accept: 'application/asset-administration-shell-package+xml' } });
    expect(exported.status).toBe(200);
    const form = new FormData();
    form.append('aasIds', 'urn:v31:pkg:1');
    form.append('file', new Blob([await exported.arrayBuffer()]), 'v31.aasx');
    const created = await fetch(`${v31}/packages`, { method: 'POST', body: form });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(new RegExp(`^${v31.replace(/[.]/g, '\\.')}/packages/`));
    const listed = await json(fetch(`${v31}/packages`));
    expect(listed.result.length).toBeGreaterThan(0);
    expect((await fetch(created.headers.get('location')!)).status).toBe(200);
  });

  it('/description claims the V3.1 profiles through V3.1 and the V3.0.4 ones through V3.0', async () => {
    const profiles31: string[] = (await json(fetch(`${v31}/description`))).profiles;
    expect(profiles31.every((p) => p.startsWith('https://admin-shell.io/aas/API/3/1/'))).toBe(true);
    expect(profiles31).toEqual(
      expect.arrayContaining([
        'https://admin-shell.io/aas/API/3/1/AssetAdministrationShellRepositoryServiceSpecification/SSP-001',
        'https://admin-shell.io/aas/API/3/1/SubmodelRepositoryServiceSpecification/SSP-005',
        'https://admin-shell.io/aas/API/3/1/DiscoveryServiceSpecification/SSP-002',
        'https://admin-shell.io/aas/API/3/1/AasxFileServerServiceSpecification/SSP-001',
      ]),
    );
    // No bulk profile: the registries' bulk operations are not served.
    expect(profiles31.some((p) => p.endsWith('RegistryServiceSpecification/SSP-003'))).toBe(false);
    const profiles30: string[] = (await json(fetch(`${v30}/description`))).profiles;
    expect(profiles30.every((p) => p.startsWith('https://admin-shell.io/aas/API/3/0/'))).toBe(true);
  });
});

describe('serialization: the version from the path or the Accept profile', () => {
  it('answers in the media type asked, and refuses a profile of a version it does not write (406)', async () => {
    expect((await send(`${v31}/shells`, 'POST', sampleShell('urn:v31:ser:1'))).status).toBe(201);
    const url = `${v31}/serialization?aasIds=${b64('urn:v31:ser:1')}`;
    const asJson = await fetch(url, { headers: { accept: 'application/json;profile="https://admin-shell.io/aas/3/1"' } });
    expect(asJson.status).toBe(200);
    expect(asJson.headers.get('content-type')).toMatch(/^application\/json/);
    expect((await json(asJson)).assetAdministrationShells[0].id).toBe('urn:v31:ser:1');
    const weighted = await fetch(url, { headers: { accept: 'application/xml;q=0.5, application/json;profile="https://admin-shell.io/aas/3/0"' } });
    expect(weighted.headers.get('content-type')).toMatch(/^application\/json/);
    // XML in the namespace of the path's version, or of the profile asked.
    const xml = await fetch(url, { headers: { accept: 'application/xml' } });
    expect(xml.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(await xml.text()).toMatch(/<environment[^>]*xmlns="https:\/\/admin-shell\.io\/aas\/3\/1"/);
    const asV30 = await fetch(url, { headers: { accept: 'application/xml;profile="https://admin-shell.io/aas/3/0"' } });
    expect(await asV30.text()).toMatch(/<environment[^>]*xmlns="https:\/\/admin-shell\.io\/aas\/3\/0"/);
    const throughV30 = await fetch(url.replace('/api/v3.1/', '/api/v3.0/'), { headers: { accept: 'application/xml' } });
    expect(await throughV30.text()).toMatch(/<environment[^>]*xmlns="https:\/\/admin-shell\.io\/aas\/3\/0"/);
    const profiled = await fetch(url.replace('/api/v3.1/', '/api/v3.0/'), { headers: { accept: 'application/xml;profile="https://admin-shell.io/aas/3/1"' } });
    expect(await profiled.text()).toMatch(/<environment[^>]*xmlns="https:\/\/admin-shell\.io\/aas\/3\/1"/);
    const unknown = await fetch(url, { headers: { accept: 'application/json;profile="https://admin-shell.io/aas/2/0"' } });
    expect(unknown.status).toBe(406);
    expect((await json(unknown)).messages[0].text).toContain('https://admin-shell.io/aas/3/1');
    expect((await fetch(url, { headers: { accept: 'text/html' } })).status).toBe(406);
  });
});

describe('a document that needs V3.1, through both versions', () => {
  it('a shell with assetKind Role: as stored through V3.1, NotApplicable and marked through V3.0 (GET by id, hot or not, and lists)', async () => {
    expect((await send(`${v31}/shells`, 'POST', sampleShell('urn:v31:role:1'))).status).toBe(201);
    // Stored as V3.1 content (what an import or a V3.1 write of the model stores): the literal V3.0 lacks.
    await server.dataSource.query(
      `UPDATE shells SET doc = jsonb_set(doc, '{assetInformation,assetKind}', '"Role"'), asset_kind = 'Role', aas_version = '3.1' WHERE tenant_id = $1 AND id = $2`,
      [tenant.id, 'urn:v31:role:1'],
    );
    const url = (base: string) => `${base}/shells/${b64('urn:v31:role:1')}`;
    for (let round = 0; round < 2; round++) {
      // Twice: the second read is answered from the read cache, before routing.
      const through31 = await fetch(url(v31));
      expect(through31.headers.get('x-aas-version-mapped')).toBeNull();
      expect((await json(through31)).assetInformation.assetKind).toBe('Role');
      const through30 = await fetch(url(v30));
      expect(through30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
      expect((await json(through30)).assetInformation.assetKind).toBe('NotApplicable');
    }
    // Serialized through each version: the literal as stored through V3.1, mapped through V3.0.
    const serialized = (base: string) => fetch(`${base}/serialization?aasIds=${b64('urn:v31:role:1')}&includeConceptDescriptions=false`, { headers: { accept: 'application/json' } }).then(json);
    expect((await serialized(v31)).assetAdministrationShells[0].assetInformation.assetKind).toBe('Role');
    expect((await serialized(v30)).assetAdministrationShells[0].assetInformation.assetKind).toBe('NotApplicable');
    const info = await fetch(`${url(v30)}/asset-information`);
    expect(info.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect((await json(info)).assetKind).toBe('NotApplicable');
    for (let round = 0; round < 2; round++) {
      const list30 = await fetch(`${v30}/shells?idStartsWith=urn:v31:role:`);
      expect(list30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
      expect((await json(list30)).result[0].assetInformation.assetKind).toBe('NotApplicable');
      const list31 = await fetch(`${v31}/shells?idStartsWith=urn:v31:role:`);
      expect(list31.headers.get('x-aas-version-mapped')).toBeNull();
      expect((await json(list31)).result[0].assetInformation.assetKind).toBe('Role');
    }
  });

  it('an imported submodel with what only V3.1 allows (a hyphen in an idShort) is the same through both, marked through V3.0', async () => {
    const sm = submodel('urn:v31:hyphen:1', [property('Max-Temperature', '80')]);
    const upload = new FormData();
    upload.append('file', new Blob([JSON.stringify({ assetAdministrationShells: [], submodels: [sm] })], { type: 'application/json' }), 'v31.json');
    const imported = await fetch(`${v31}/upload`, { method: 'POST', body: upload });
    expect(imported.status).toBe(200);
    const id = b64('urn:v31:hyphen:1');
    const through31 = await fetch(`${v31}/submodels/${id}`);
    const through30 = await fetch(`${v30}/submodels/${id}`);
    expect(through31.headers.get('x-aas-version-mapped')).toBeNull();
    expect(through30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect(await json(through30)).toEqual(await json(through31));
    const element30 = await fetch(`${v30}/submodels/${id}/submodel-elements/Max-Temperature`);
    expect(element30.headers.get('x-aas-version-mapped')).toBe('3.1->3.0');
    expect((await json(element30)).value).toBe('80');
    expect((await fetch(`${v31}/submodels/${id}/submodel-elements/Max-Temperature`)).headers.get('x-aas-version-mapped')).toBeNull();
    // A V3.0 document is not marked.
    expect((await send(`${v30}/submodels`, 'POST', submodel('urn:v31:plain:1', [property('Plain')]))).status).toBe(201);
    expect((await fetch(`${v30}/submodels/${b64('urn:v31:plain:1')}`)).headers.get('x-aas-version-mapped')).toBeNull();
  });
});

describe('writes are verified in the version they come through', () => {
  it('V3.1 takes what only V3.1 allows, V3.0 refuses it with 400 and stores nothing', async () => {
    const role = sampleShell('urn:v31:write:role', { assetInformation: { assetKind: 'Role', globalAssetId: 'urn:v31:write:asset' } });
    const refused = await send(`${v30}/shells`, 'POST', role);
    expect(refused.status).toBe(400);
    expect((await fetch(`${v31}/shells/${b64('urn:v31:write:role')}`)).status).toBe(404);
    expect((await send(`${v31}/shells`, 'POST', role)).status).toBe(201);
    expect((await json(fetch(`${v31}/shells/${b64('urn:v31:write:role')}`))).assetInformation.assetKind).toBe('Role');
    const hyphen = submodel('urn:v31:write:hyphen', [property('Max-Speed')]);
    expect((await send(`${v30}/submodels`, 'POST', hyphen)).status).toBe(400);
    expect((await send(`${v31}/submodels`, 'POST', hyphen)).status).toBe(201);
    // A V3.0 replacement of what it read keeps the V3.1 literal it did not touch.
    const seen = await json(fetch(`${v30}/shells/${b64('urn:v31:write:role')}`));
    expect(seen.assetInformation.assetKind).toBe('NotApplicable');
    expect((await send(`${v30}/shells/${b64('urn:v31:write:role')}`, 'PUT', { ...seen, idShort: 'Renamed' })).status).toBe(204);
    const stored = await json(fetch(`${v31}/shells/${b64('urn:v31:write:role')}`));
    expect(stored.idShort).toBe('Renamed');
    expect(stored.assetInformation.assetKind).toBe('Role');
  });
});

describe('AASX exports through V3.1', () => {
  it('packs a readable environment', async () => {
    expect((await send(`${v31}/shells`, 'POST', sampleShell('urn:v31:aasx:1'))).status).toBe(201);
    const res = await fetch(`${v31}/serialization?aasIds=${b64('urn:v31:aasx:1')}`, { headers: { accept: 'application/asset-administration-shell-package+json' } });
    expect(res.status).toBe(200);
    const zip = await JSZip.loadAsync(await res.arrayBuffer());
    const spec = Object.keys(zip.files).find((name) => name.endsWith('.json') && !name.startsWith('['));
    expect(spec).toBeDefined();
    expect(JSON.parse(await zip.file(spec!)!.async('string')).assetAdministrationShells[0].id).toBe('urn:v31:aasx:1');
  });
});
