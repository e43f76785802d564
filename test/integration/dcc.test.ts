import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { graphql, tenantRoleTokens } from '../support/grants';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * DCC conversion (`POST {tenant_url}/sphere/api/v1.0/dcc/conversions`, the GraphQL query dccConversionPreview and
 * mutation convertDcc) on real certificates: preview stores nothing; store keeps the original byte for byte and an
 * embedded document in the file repository, creates the submodel and references it from a shell; bad input is 4xx
 * with a Result and leaves nothing behind; readers preview, contributors store, other tenants see nothing.
 */

const FIXTURES = path.resolve(__dirname, '../fixtures/dcc');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name));
const TYPICAL = 'dcc_gp_temperature_typical_v12.xml';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(async () => {
  await server?.close();
});

const conversions = (tenant: string, query = '') => `${server.url}/tenants/${tenant}/sphere/api/v1.0/dcc/conversions${query}`;
const as = (token?: string): Record<string, string> => (token ? { authorization: `Bearer ${token}` } : {});
const postXml = (url: string, body: string | Buffer, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/xml', ...headers }, body: new Uint8Array(body instanceof Buffer ? body : Buffer.from(body)) });

/** What the tenant holds: its submodels' ids and its files' tfps. */
async function holdings(tenant: string) {
  const submodels = (await json(fetch(`${server.api(tenant)}/submodels`))).result.map((s: { id: string }) => s.id);
  const files = (await json(fetch(`${server.url}/tenants/${tenant}/sphere/api/v1.0/files`))).result.map((f: { tfp: string }) => f.tfp);
  return { submodels, files };
}

/** A real certificate with a small document embedded (none of the vendored ones has one). */
const withDocument = (name: string) =>
  Buffer.from(
    fixture(name)
      .toString('utf8')
      .replace('</dcc:measurementResults>', '</dcc:measurementResults><dcc:document><dcc:fileName>certificate.pdf</dcc:fileName><dcc:mimeType>application/pdf</dcc:mimeType><dcc:dataBase64>JVBERi0xLjQKJcTl8uXr</dcc:dataBase64></dcc:document>'),
  );

describe('DCC conversion over REST', () => {
  it('previews a DCC: the submodel and its warnings, nothing stored', async () => {
    const t = await server.createTenant();
    const res = await postXml(conversions(t.name, '?mode=preview'), fixture(TYPICAL));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ submodelId: 'urn:dcc:GP_DCC_temperature_typical_1.2', schemaVersion: '3.1.1', stored: false, signaturePresent: false, referencedFrom: null });
    expect(body.submodel.semanticId.keys[0].value).toBe('https://ptb.de/dcc/digitalCalibrationCertificate');
    expect(body.files).toEqual([expect.objectContaining({ role: 'original', idShortPath: 'originalDcc', tfp: null, size: fixture(TYPICAL).length })]);
    expect(body.warnings.length).toBeGreaterThan(0);
    // The default mode is preview.
    expect((await postXml(conversions(t.name), fixture(TYPICAL))).status).toBe(200);
    expect(await holdings(t.name)).toEqual({ submodels: [], files: [] });
  });

  it('stores a DCC: the original byte for byte, the embedded document, the submodel, the reference from the shell; 201 with Location', async () => {
    const t = await server.createTenant();
    const shell = sampleShell('urn:shell:thermometer', { assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:asset:thermometer', specificAssetIds: [{ name: 'serial', value: 'string-manufacturer-item' }] } });
    expect((await fetch(`${server.api(t.name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) })).status).toBe(201);
    const bytes = withDocument('siliziumkugel_2_4_0.xml');
    // The shell's asset ids do not include the silicon sphere's identifications: stored, with a warning.
    const res = await postXml(conversions(t.name, `?mode=store&shellId=${b64('urn:shell:thermometer')}&submodelId=urn:dcc:sphere`), bytes);
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`${server.api(t.name)}/submodels/${b64('urn:dcc:sphere')}`);
    const body = await json(res);
    expect(body).toMatchObject({ submodelId: 'urn:dcc:sphere', stored: true, referencedFrom: 'urn:shell:thermometer' });
    expect(body.warnings.join('\n')).toMatch(/is an asset id of shell 'urn:shell:thermometer'/);
    const [original, document] = body.files;
    expect(original).toMatchObject({ role: 'original', contentType: 'application/xml' });
    expect(document).toMatchObject({ role: 'document', fileName: 'certificate.pdf', contentType: 'application/pdf' });
    const download = async (tfp: string) => Buffer.from(await (await fetch(`${server.url}/tenants/${t.name}/sphere/api/v1.0/files/${encodeURIComponent(tfp)}`)).arrayBuffer());
    expect((await download(original.tfp)).equals(bytes)).toBe(true);
    expect((await download(document.tfp)).equals(Buffer.from('JVBERi0xLjQKJcTl8uXr', 'base64'))).toBe(true);
    // The stored submodel is the one answered; its File elements hold the tfps.
    const stored = await json(fetch(res.headers.get('location')!));
    expect(stored).toEqual(body.submodel);
    expect(stored.submodelElements.find((e: { idShort: string }) => e.idShort === 'originalDcc').value).toBe(original.tfp);
    const refs = await json(fetch(`${server.api(t.name)}/shells/${b64('urn:shell:thermometer')}/submodel-refs`));
    expect(refs.result.map((r: { keys: { value: string }[] }) => r.keys[0].value)).toEqual(['urn:dcc:sphere']);
    // The same DCC again under the same id: 409, and nothing more is stored.
    const again = await postXml(conversions(t.name, '?mode=store&submodelId=urn:dcc:sphere'), bytes);
    expect(again.status).toBe(409);
    expect((await json(again)).messages[0].text).toMatch(/already exists/);
    expect((await holdings(t.name)).files).toHaveLength(2);
  });

  it('stores texts with quotes, backslashes, braces, commas, line breaks and "NULL" as they are', async () => {
    const t = await server.createTenant();
    const texts = ['a "quoted" \\ backslash', '{braces}, commas', 'NULL', 'line\nbreak', 'ünïcödé 温度', '} \\" {'].map((text, i) => `${text} ${i}`);
    const names = texts.map((text, i) => `<dcc:quantity refType="q${i}"><dcc:name><dcc:content lang="en">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</dcc:content></dcc:name><dcc:noQuantity><dcc:content lang="en">${text}</dcc:content></dcc:noQuantity></dcc:quantity>`);
    const xml = fixture(TYPICAL).toString('utf8').replace('<dcc:data>', `<dcc:data>${names.join('')}`);
    const preview = await json(postXml(conversions(t.name, '?mode=preview'), xml));
    const res = await postXml(conversions(t.name, '?mode=store&submodelId=urn:dcc:texts'), xml);
    expect(res.status).toBe(201);
    const stored = await json(fetch(res.headers.get('location')!));
    const withoutFiles = (submodel: { submodelElements: { idShort: string }[] }) => submodel.submodelElements.filter((e) => e.idShort !== 'originalDcc');
    expect(withoutFiles(stored)).toEqual(withoutFiles(preview.submodel));
    for (const text of texts) expect(JSON.stringify(stored).includes(JSON.stringify(text)), text).toBe(true);
  });

  it('takes the DCC as a multipart upload too, and checks the named shell (a match gives no warning)', async () => {
    const t = await server.createTenant();
    const shell = sampleShell('urn:shell:probe', { assetInformation: { assetKind: 'Instance', specificAssetIds: [{ name: 'serial', value: 'string-manufacturer-item' }] } });
    await fetch(`${server.api(t.name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(fixture(TYPICAL))], { type: 'application/xml' }), 'typical.xml');
    const res = await fetch(conversions(t.name, `?mode=store&shellId=${b64('urn:shell:probe')}`), { method: 'POST', body: form });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.warnings.join('\n')).not.toMatch(/asset id of shell/);
    expect(body.files[0]).toMatchObject({ fileName: 'typical.xml' });
    expect(body.specificAssetIds).toContainEqual({ name: 'manufacturer', value: 'string-manufacturer-item' });
  });

  it("adds the calibrated items' identifications to the shell on request, so that discovery finds it by them", async () => {
    const t = await server.createTenant();
    const shell = sampleShell('urn:shell:sensor', { assetInformation: { assetKind: 'Instance', specificAssetIds: [{ name: 'manufacturer', value: 'string-manufacturer-item' }] } });
    await fetch(`${server.api(t.name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });
    const lookup = async (name: string, value: string) =>
      (await json(fetch(`${server.api(t.name)}/lookup/shells?assetIds=${Buffer.from(JSON.stringify({ name, value })).toString('base64url')}`))).result;
    expect(await lookup('customer', 'string-customer-item')).toEqual([]);
    const query = `?shellId=${b64('urn:shell:sensor')}&addAssetIds=true`;
    const preview = await json(postXml(conversions(t.name, `${query}&mode=preview`), fixture(TYPICAL)));
    const expected = [
      { name: 'customer', value: 'string-customer-item' },
      { name: 'calibrationLaboratory', value: 'string-calibrationLaboratory-item' },
    ];
    expect(preview.assetIdsAdded).toEqual(expected);
    expect(await lookup('customer', 'string-customer-item')).toEqual([]);
    const stored = await json(postXml(conversions(t.name, `${query}&mode=store`), fixture(TYPICAL)));
    expect(stored.assetIdsAdded).toEqual(expected);
    expect(await lookup('customer', 'string-customer-item')).toEqual(['urn:shell:sensor']);
    expect(await lookup('calibrationLaboratory', 'string-calibrationLaboratory-item')).toEqual(['urn:shell:sensor']);
    const after = await json(fetch(`${server.api(t.name)}/shells/${b64('urn:shell:sensor')}`));
    expect(after.assetInformation.specificAssetIds).toEqual([{ name: 'manufacturer', value: 'string-manufacturer-item' }, ...expected]);
    expect(after.submodels.map((r: { keys: { value: string }[] }) => r.keys[0].value)).toEqual(['urn:dcc:GP_DCC_temperature_typical_1.2']);
  });

  it('refuses bad input with 4xx and a Result, storing nothing', async () => {
    const t = await server.createTenant();
    await fetch(`${server.api(t.name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(sampleShell('urn:shell:s')) });
    const typical = fixture(TYPICAL).toString('utf8');
    const cases: [string, () => Promise<Response>, number, RegExp][] = [
      ['not XML', () => postXml(conversions(t.name, '?mode=store'), 'not xml at all'), 400, /not well-formed XML/],
      ['another root', () => postXml(conversions(t.name, '?mode=store'), '<a xmlns="urn:x"/>'), 400, /no DCC: its root element/],
      ['an unknown schema version', () => postXml(conversions(t.name, '?mode=store'), typical.replace('schemaVersion="3.1.1"', 'schemaVersion="1.0.0"')), 400, /Unknown DCC schema version/],
      ['a DCC breaking its schema', () => postXml(conversions(t.name, '?mode=store'), fixture('siliziumkugel_wrong_schema.xml')), 400, /dcc:named/],
      ['a DTD', () => postXml(conversions(t.name, '?mode=store'), `<!DOCTYPE d [<!ENTITY x SYSTEM "file:///etc/passwd">]>${typical.replace(/^<\?xml[^>]*>/, '')}`), 400, /DOCTYPE/],
      ['an oversized body', () => postXml(conversions(t.name, '?mode=store'), Buffer.alloc(32 * 1024 * 1024 + 10, 32)), 413, /larger than 33554432 bytes/],
      ['an empty body', () => postXml(conversions(t.name, '?mode=store'), ''), 400, /needs the DCC/],
      ['JSON', () => fetch(conversions(t.name, '?mode=store'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 415, /Content-Type must be application\/xml/],
      ['an unknown mode', () => postXml(conversions(t.name, '?mode=keep'), typical), 400, /'mode' must be preview or store/],
      ['an unknown parameter', () => postXml(conversions(t.name, '?mode=store&shell=x'), typical), 400, /Unknown query parameter 'shell'/],
      ['a shellId that is no base64url', () => postXml(conversions(t.name, '?mode=store&shellId=a+b'), typical), 400, /'shellId' must be the shell's id/],
      ['a shell that does not exist', () => postXml(conversions(t.name, `?mode=store&shellId=${b64('urn:shell:none')}`), typical), 404, /urn:shell:none/],
      ['addAssetIds without a shell', () => postXml(conversions(t.name, '?mode=store&addAssetIds=true'), typical), 400, /addAssetIds needs shellId/],
      ['addAssetIds that is no boolean', () => postXml(conversions(t.name, `?mode=store&addAssetIds=yes&shellId=${b64('urn:shell:s')}`), typical), 400, /'addAssetIds' must be true or false/],
      ['an empty submodelId', () => postXml(conversions(t.name, '?mode=store&submodelId='), typical), 400, /'submodelId' is empty/],
      ['a multipart form without the file', () => fetch(conversions(t.name, '?mode=store'), { method: 'POST', body: (() => { const f = new FormData(); f.append('note', 'x'); return f; })() }), 400, /form field|part 'file'/],
    ];
    for (const [what, send, status, message] of cases) {
      const res = await send();
      expect(res.status, what).toBe(status);
      const result = await json(res);
      expect(result.messages?.[0]?.text, what).toMatch(message);
      expect(result.messages[0].messageType, what).toBe('Error');
    }
    expect(await holdings(t.name)).toEqual({ submodels: [], files: [] });
    // A store that fails at the reference (the shell references a submodel of that id already) rolls back the files too.
    const shellWithRef = sampleShell('urn:shell:r', { submodels: [{ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:dcc:GP_DCC_temperature_typical_1.2' }] }] });
    await fetch(`${server.api(t.name)}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shellWithRef) });
    const conflicting = await postXml(conversions(t.name, `?mode=store&shellId=${b64('urn:shell:r')}`), typical);
    expect(conflicting.status).toBe(409);
    expect(await holdings(t.name)).toEqual({ submodels: [], files: [] });
  });

  it('lets readers preview, contributors store, and nobody else in; other tenants see nothing', async () => {
    const { tenant: t, reader, contributor, elsewhere, stranger } = await tenantRoleTokens(server);
    const dcc = fixture(TYPICAL);

    expect((await postXml(conversions(t.name), dcc)).status).toBe(401);
    expect((await postXml(conversions(t.name, '?mode=preview'), dcc, as(reader))).status).toBe(200);
    const refused = await postXml(conversions(t.name, '?mode=store'), dcc, as(reader));
    expect(refused.status).toBe(403);
    expect((await json(refused)).messages[0].messageType).toBe('Error');
    // Another organization's contributor: the tenant does not exist for it.
    expect((await postXml(conversions(t.name, '?mode=preview'), dcc, as(stranger))).status).toBe(404);
    expect((await postXml(conversions(t.name, '?mode=store'), dcc, as(stranger))).status).toBe(404);
    const stored = await postXml(conversions(t.name, '?mode=store'), dcc, as(contributor));
    expect(stored.status).toBe(201);
    // Stored in t only: the stranger's tenant has no such submodel.
    expect((await fetch(`${server.api(elsewhere.name)}/submodels/${b64('urn:dcc:GP_DCC_temperature_typical_1.2')}`, { headers: as(stranger) })).status).toBe(404);
    expect((await fetch(`${server.api(t.name)}/submodels/${b64('urn:dcc:GP_DCC_temperature_typical_1.2')}`, { headers: as(reader) })).status).toBe(200);

    // GraphQL: the same rules.
    const preview = `query($t: String!, $d: XmlDocument!) { dccConversionPreview(tenant: $t, dcc: $d) { submodelId stored files { role tfp } } }`;
    const store = `mutation($t: String!, $d: XmlDocument!, $id: String) { convertDcc(tenant: $t, dcc: $d, submodelId: $id) { submodelId stored files { role tfp } } }`;
    const asReader = await graphql(server, reader, preview, { t: t.name, d: dcc.toString('utf8') });
    expect(asReader.body.errors).toBeUndefined();
    expect(asReader.body.data.dccConversionPreview).toEqual({ submodelId: 'urn:dcc:GP_DCC_temperature_typical_1.2', stored: false, files: [{ role: 'original', tfp: null }] });
    const readerStores = await graphql(server, reader, store, { t: t.name, d: dcc.toString('utf8'), id: 'urn:dcc:gql' });
    expect(readerStores.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const strangerPreviews = await graphql(server, stranger, preview, { t: t.name, d: dcc.toString('utf8') });
    expect(strangerPreviews.body.errors[0].extensions.code).toBe('NOT_FOUND');
    const contributorStores = await graphql(server, contributor, store, { t: t.name, d: dcc.toString('utf8'), id: 'urn:dcc:gql' });
    expect(contributorStores.body.data.convertDcc).toMatchObject({ submodelId: 'urn:dcc:gql', stored: true });
    expect(contributorStores.body.data.convertDcc.files[0].tfp).toMatch(new RegExp(`^file:/sphere/${t.name}/`));
    const bad = await graphql(server, contributor, store, { t: t.name, d: '<x/>', id: 'urn:dcc:bad' });
    expect(bad.body.errors[0]).toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
    expect(bad.body.errors[0].message).toMatch(/no DCC/);
  });

  it('writes a canonical submodel while verifying it: a refused one leaves nothing, a non-canonical one is stored canonical', async () => {
    const t = await server.createTenant();
    const { submodels } = server.services;
    const element = (i: number) => ({ idShort: `p${i}`, semanticId: { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: `urn:p:${i}` }] }, valueType: 'xs:double', value: String(i), modelType: 'Property' });
    // Large enough to be verified in the worker (its answer: the same text, or the canonical one).
    const canonical = { idShort: 'big', id: 'urn:canonical:big', kind: 'Instance', submodelElements: Array.from({ length: 3_000 }, (_, i) => element(i)), modelType: 'Submodel' };
    const create = (doc: Record<string, unknown>) => server.dataSource.transaction((manager) => submodels.createCanonical(t, doc, { manager }));
    const stored = async (id: string) => {
      const res = await fetch(`${server.api(t.name)}/submodels/${b64(id)}`);
      return res.status === 200 ? await res.text() : res.status;
    };

    expect(await create(canonical)).toBe(canonical);
    expect(JSON.parse((await stored('urn:canonical:big')) as string)).toEqual(canonical);

    // Not in the canonical order (modelType first, a small one and a large one): written again, canonical.
    for (const count of [2, 3_000]) {
      const id = `urn:canonical:reordered-${count}`;
      const reordered = { modelType: 'Submodel', id, idShort: 'reordered', submodelElements: Array.from({ length: count }, (_, i) => {
        const { modelType, ...rest } = element(i);
        return { modelType, ...rest };
      }) };
      const created = await create(reordered);
      expect(Object.keys(created)).toEqual(['idShort', 'id', 'submodelElements', 'modelType']);
      expect(Object.keys((created.submodelElements as Record<string, unknown>[])[1])).toEqual(['idShort', 'semanticId', 'valueType', 'value', 'modelType']);
      const read = JSON.parse((await stored(id)) as string);
      expect(read).toEqual(created);
    }

    // Refused by the metamodel (a value no xs:double; an idShort twice), though the write itself went through: 400, nothing stored.
    for (const [id, change] of [
      ['urn:canonical:bad-value', (e: Record<string, unknown>[]) => (e[2_500].value = 'not a number')],
      ['urn:canonical:twice', (e: Record<string, unknown>[]) => (e[1].idShort = 'p0')],
    ] as const) {
      const bad = structuredClone({ ...canonical, id });
      change(bad.submodelElements);
      await expect(create(bad)).rejects.toMatchObject({ extensions: { code: 'BAD_REQUEST' } });
      expect(await stored(id)).toBe(404);
    }
    // One that exists: 409, as `create`, and the stored one is untouched.
    await expect(create({ ...canonical, idShort: 'other' })).rejects.toMatchObject({ extensions: { code: 'CONFLICT' } });
    expect(JSON.parse((await stored('urn:canonical:big')) as string).idShort).toBe('big');
  });

  it('is described in the tenant OpenAPI document', async () => {
    const t = await server.createTenant();
    const doc = await json(fetch(`${server.api(t.name)}/openapi.json`));
    const operation = doc.paths['/sphere/api/v1.0/dcc/conversions'].post;
    expect(operation.operationId).toBe('PostDccConversion');
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(['mode', 'shellId', 'addAssetIds', 'submodelId']);
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '201', '400', '403', '404', '409', '413', '415']));
  });
});
