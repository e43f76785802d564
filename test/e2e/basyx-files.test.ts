import { randomBytes } from 'node:crypto';
import { jsonization, types as aas } from '@aas-core-works/aas-core3.0-typescript';
import type * as Sdk from 'basyx-typescript-sdk';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Exchange, failure, fixture, generatedFailure, ok, recordingConfiguration, sdk, tenantSdk } from '../support/basyx-sdk';
import { TestServer, b64, startTestServer } from '../support/server';

/*
 * The Eclipse BaSyx TypeScript SDK (`basyx-typescript-sdk` 1.0.2) against the running server over real HTTP, for
 * everything it offers about files and serializations. What the SDK has (its published `dist/**.d.ts`):
 *
 * - AasRepositoryClient: `getThumbnail`, `putThumbnail`, `deleteThumbnail` (`/shells/{id}/asset-information/thumbnail`)
 *   and `getFileByPathAasRepository`, `putFileByPathAasRepository`, `deleteFileByPathAasRepository`
 *   (`/shells/{id}/submodels/{id}/submodel-elements/{path}/attachment`).
 * - SubmodelRepositoryClient: nothing about attachments. The SDK's generated API underneath it has them:
 *   `SubmodelRepositoryService.SubmodelRepositoryAPIApi.{get,put,delete}FileByPathSubmodelRepo`
 *   (`/submodels/{id}/submodel-elements/{path}/attachment`), used here as an SDK user would reach them (ids
 *   base64url-encoded by the caller, failures thrown as `ResponseError`).
 * - AasxFileClient (AASX File Server, `/packages`): `getAllAASXPackageIds`, `postAASXPackage`, `getAASXByPackageId`,
 *   `putAASXByPackageId`, `deleteAASXByPackageId`.
 * - Serialization (`GET /serialization`): no client class. Only generated APIs, one per service, all three the same
 *   operation: `AasRepositoryService.SerializationAPIApi`, `SubmodelRepositoryService.SerializationAPIApi` and
 *   `ConceptDescriptionRepositoryService.SerializationAPIApi`, `generateSerializationByIds({aasIds, submodelIds,
 *   includeConceptDescriptions})` (ids base64url-encoded by the caller; the format is chosen with the `Accept`
 *   header, set here through the SDK's `Configuration.headers`; without one, Node's fetch accepts any type and
 *   the server answers XML, its default).
 * - Not in the SDK at all: the AASX upload of the BaSyx AAS Environment (`POST /upload`) and this platform's file
 *   repository (`/sphere/api/v1.0/files`); neither is tested here (test/integration covers them).
 *
 * Loaded through test/support/basyx-sdk.ts (with `require`), results compared as AAS JSON, for the reasons given there.
 *
 * SDK findings (worked around here, not in the server):
 * - Uploads (`putThumbnail`, `put*FileByPath*`, `postAASXPackage`, `putAASXByPackageId`) append the `file` argument
 *   to a FormData as it is; a plain `Blob` therefore goes over the wire as a part named `blob`, and the SDK's
 *   `fileName` argument only as a separate form field.
 * - `AasxFileClient.getAllAASXPackageIds` returns `{ result: <the response body> }`, and the body is the AAS API's
 *   PagedResult (`{paging_metadata, result: PackageDescription[]}`), so the package list is `data.result.result`,
 *   not the `data.result: PackageDescription[]` the SDK declares (`packageList` below).
 * - `AasxFileClient.getAllAASXPackageIds({ aasId })` sends the id as it is (the SDK's base64url encoding of it is
 *   commented out), but the AASX File Server API takes it base64url-encoded: a plain id gets 400, so callers
 *   pass `b64(id)`. Likewise `postAASXPackage`/`putAASXByPackageId` send `aasIds` as one comma-joined field (the
 *   server ignores it and reads the shells from the package).
 *
 * The SDK sends the `fileName` field before the file part (a plain `Blob`, whose part is named `blob`): the server
 * stores the file under that `fileName` (AAS Part 2, PutThumbnail/PutFileByPath), as BaSyx does.
 *
 * Server defects found with these tests, fixed: a thumbnail, attachment or package whose file name has a character
 * outside Latin-1 answered 500 (the raw name in Content-Disposition; all downloads now send the RFC 8187 form);
 * the `fileName` field was ignored (every SDK upload was stored as `blob`).
 */
const { AasRepositoryClient, SubmodelRepositoryClient, AasxFileClient, AasRepositoryService, SubmodelRepositoryService, ConceptDescriptionRepositoryService } = sdk;

type Json = Record<string, unknown>;

let server: TestServer;
const shells = new AasRepositoryClient();
const submodels = new SubmodelRepositoryClient();
const packages = new AasxFileClient();

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

interface TenantClient {
  tenant: string;
  api: string;
  configuration: Sdk.Configuration;
  wire: Exchange[];
  /** The SDK's generated Submodel Repository API: the attachment routes no client class wraps. */
  generated: Sdk.SubmodelRepositoryService.SubmodelRepositoryAPIApi;
  /** A configuration asking for another serialization format (`Accept`), same tenant and wire log. */
  accepting(type: string): Sdk.Configuration;
}

async function tenantClient(target: TestServer = server): Promise<TenantClient> {
  const client = await tenantSdk(target);
  return {
    ...client,
    generated: new SubmodelRepositoryService.SubmodelRepositoryAPIApi(client.configuration),
    accepting: (type) => recordingConfiguration(client.api, client.wire, { Accept: type }),
  };
}

const bytesOf = async (blob: Blob) => Buffer.from(await blob.arrayBuffer());

/** Every byte value, then random bytes: what comes back must be the same bytes, not a text reading of them. */
const binary = (size: number) => Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, n) => n)), randomBytes(Math.max(0, size - 256))]).subarray(0, size);

/** A tfp of this tenant: `file:/sphere/{tenant}/{uuid}/{fileName}`. */
const tfpOf = (tenant: string, fileName: string) =>
  new RegExp(`^file:/sphere/${tenant}/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/${encodeURIComponent(fileName).replace(/[.]/g, '\\.')}$`);

const jsonOf = (instance: aas.Class) => jsonization.toJsonable(instance) as Json;

const shellOf = (json: Json): aas.AssetAdministrationShell => fixture(jsonization.assetAdministrationShellFromJsonable, json);
const submodelOf = (json: Json): aas.Submodel => fixture(jsonization.submodelFromJsonable, json);

const submodelRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
const globalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

function shellJson(id: string, submodelIds: string[], extra: Json = {}): Json {
  return {
    modelType: 'AssetAdministrationShell',
    id,
    idShort: 'Pump',
    assetInformation: { assetKind: 'Instance', globalAssetId: `${id}#asset`, ...extra },
    ...(submodelIds.length ? { submodels: submodelIds.map(submodelRef) } : {}),
  };
}

/** A submodel with File and Blob elements top-level, in a collection and in a list, and elements that are neither. */
function documentsJson(id: string, semanticId?: string): Json {
  return {
    modelType: 'Submodel',
    id,
    idShort: 'Documents',
    ...(semanticId ? { semanticId: globalRef(semanticId) } : {}),
    submodelElements: [
      { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf' },
      { modelType: 'File', idShort: 'Link', contentType: 'application/pdf', value: 'https://example.com/manual.pdf' },
      { modelType: 'Blob', idShort: 'Raw', contentType: 'application/octet-stream' },
      { modelType: 'Property', idShort: 'Prop', valueType: 'xs:string', value: 'x' },
      { modelType: 'SubmodelElementCollection', idShort: 'Docs', value: [{ modelType: 'File', idShort: 'Deep', contentType: 'text/plain' }] },
      { modelType: 'SubmodelElementList', idShort: 'Sheets', typeValueListElement: 'File', value: [{ modelType: 'File', contentType: 'text/csv' }] },
    ],
  };
}

async function createShell(client: TenantClient, json: Json) {
  ok(await shells.postAssetAdministrationShell({ configuration: client.configuration, assetAdministrationShell: shellOf(json) }));
}

async function createSubmodel(client: TenantClient, json: Json) {
  ok(await submodels.postSubmodel({ configuration: client.configuration, submodel: submodelOf(json) }));
}

describe('basyx-typescript-sdk AasRepositoryClient: thumbnails', () => {
  let client: TenantClient;
  // A shell id with characters that matter in URLs, non-ASCII and an astral code point (base64url in the path).
  const id = 'https://example.com/aas/Pümpe?x=1+2&y=#frag/€/𝄞';

  beforeAll(async () => {
    client = await tenantClient();
    await createShell(client, shellJson(id, []));
  });

  const thumbnailOf = async () => ok(await shells.getAssetInformation({ configuration: client.configuration, aasIdentifier: id })).defaultThumbnail;

  it('a shell without a thumbnail: get and delete fail with 404 saying so', async () => {
    const { configuration, wire } = client;
    const none = failure(await shells.getThumbnail({ configuration, aasIdentifier: id }));
    expect(none).toEqual({ code: '404', text: `Shell '${id}' has no thumbnail.` });
    expect(wire.at(-1)).toMatchObject({ method: 'GET', url: `${client.api}/shells/${b64(id)}/asset-information/thumbnail`, status: 404 });
    expect(failure(await shells.deleteThumbnail({ configuration, aasIdentifier: id })).code).toBe('404');
    expect(await thumbnailOf()).toBeNull();
  });

  it('puts a thumbnail, gets the same bytes back, replaces it, deletes it', async () => {
    const { configuration, wire, tenant } = client;
    const png = binary(70_000);
    // A File: the part carries its name, which is the name stored.
    expect(ok(await shells.putThumbnail({ configuration, aasIdentifier: id, fileName: 'pump.png', file: new File([png], 'pump.png', { type: 'image/png' }) }))).toBeUndefined();
    expect(wire.at(-1)).toMatchObject({ method: 'PUT', status: 204 });
    const first = await thumbnailOf();
    expect(first?.contentType).toBe('image/png');
    expect(first?.path).toMatch(tfpOf(tenant, 'pump.png'));

    const got = ok(await shells.getThumbnail({ configuration, aasIdentifier: id }));
    expect((await bytesOf(got)).equals(png)).toBe(true);
    expect(got.type).toBe('image/png');
    expect(wire.at(-1)).toMatchObject({ status: 200, contentType: 'image/png', disposition: `attachment; filename="pump.png"; filename*=UTF-8''pump.png` });

    // A plain Blob: its part is named `blob`, but the SDK's fileName, sent first, names the file.
    const jpeg = binary(1234).reverse();
    ok(await shells.putThumbnail({ configuration, aasIdentifier: id, fileName: 'pump.jpg', file: new Blob([jpeg], { type: 'image/jpeg' }) }));
    const second = await thumbnailOf();
    expect(second?.contentType).toBe('image/jpeg');
    expect(second?.path).toMatch(tfpOf(tenant, 'pump.jpg'));
    expect(second?.path).not.toBe(first?.path);
    const replaced = ok(await shells.getThumbnail({ configuration, aasIdentifier: id }));
    expect((await bytesOf(replaced)).equals(jpeg)).toBe(true);
    expect(replaced.type).toBe('image/jpeg');

    // The former file stays in the file repository (only the reference moved): its tfp still resolves.
    const former = await fetch(`${server.url}/tenants/${tenant}/sphere/api/v1.0/files/${b64(first!.path)}`);
    expect(former.status).toBe(200);
    expect(Buffer.from(await former.arrayBuffer()).equals(png)).toBe(true);

    expect(ok(await shells.deleteThumbnail({ configuration, aasIdentifier: id }))).toBeUndefined();
    expect(wire.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
    expect(await thumbnailOf()).toBeNull();
    expect(failure(await shells.getThumbnail({ configuration, aasIdentifier: id })).code).toBe('404');
    expect(failure(await shells.deleteThumbnail({ configuration, aasIdentifier: id })).code).toBe('404');
  });

  it('a thumbnail whose file name is outside Latin-1: downloaded with the name RFC 8187-encoded, as the file repository sends it', async () => {
    const { configuration, wire, tenant } = client;
    const name = 'Pumpe € 𝄞.png';
    ok(await shells.putThumbnail({ configuration, aasIdentifier: id, fileName: name, file: new File(['PNG'], name, { type: 'image/png' }) }));
    const path = (await thumbnailOf())?.path;
    expect(path).toMatch(tfpOf(tenant, name));
    // Before the fix in rest-facade/attachments.ts the raw name went into the header, which Node refuses: 500.
    expect(await ok(await shells.getThumbnail({ configuration, aasIdentifier: id })).text()).toBe('PNG');
    const disposition = `attachment; filename="Pumpe _ __.png"; filename*=UTF-8''${encodeURIComponent(name)}`;
    expect(wire.at(-1)?.disposition).toBe(disposition);
    const fromRepository = await fetch(`${server.url}/tenants/${tenant}/sphere/api/v1.0/files/${b64(path!)}`);
    expect(fromRepository.headers.get('content-disposition')).toBe(disposition);
    ok(await shells.deleteThumbnail({ configuration, aasIdentifier: id }));
  });

  it('a thumbnail that is a link, not a file here: get fails with 404 saying so', async () => {
    const { configuration } = client;
    const linkShell = 'urn:e2e:thumb:link';
    await createShell(client, shellJson(linkShell, [], { defaultThumbnail: { path: 'https://example.com/pump.png', contentType: 'image/png' } }));
    const link = failure(await shells.getThumbnail({ configuration, aasIdentifier: linkShell }));
    expect(link.code).toBe('404');
    expect(link.text).toContain("is a link ('https://example.com/pump.png')");
    // Replacing it with an upload works, and deleting drops the reference.
    ok(await shells.putThumbnail({ configuration, aasIdentifier: linkShell, fileName: 'x.png', file: new File(['PNG'], 'x.png', { type: 'image/png' }) }));
    expect(await (ok(await shells.getThumbnail({ configuration, aasIdentifier: linkShell }))).text()).toBe('PNG');
    ok(await shells.deleteThumbnail({ configuration, aasIdentifier: linkShell }));
  });

  it('an absent shell: get, put and delete fail with 404', async () => {
    const { configuration } = client;
    const absent = 'urn:e2e:thumb:absent';
    expect(failure(await shells.getThumbnail({ configuration, aasIdentifier: absent })).code).toBe('404');
    expect(failure(await shells.putThumbnail({ configuration, aasIdentifier: absent, fileName: 'x.png', file: new Blob(['x'], { type: 'image/png' }) })).code).toBe('404');
    expect(failure(await shells.deleteThumbnail({ configuration, aasIdentifier: absent })).code).toBe('404');
  });
});

describe('basyx-typescript-sdk SubmodelRepositoryAPIApi (generated): attachments of File and Blob elements', () => {
  let client: TenantClient;
  const sm = 'https://example.com/sm/Documents?v=1&x=ü';

  beforeAll(async () => {
    client = await tenantClient();
    await createSubmodel(client, documentsJson(sm));
  });

  const element = async (idShortPath: string, extent?: 'withBlobValue') =>
    jsonOf(ok(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier: sm, idShortPath, extent })));
  // The generated API sends `fileName` before the file, which names the stored file: a File's own name by default.
  const put = (idShortPath: string, file: Blob, fileName = file instanceof File ? file.name : 'attachment.bin') =>
    client.generated.putFileByPathSubmodelRepo({ submodelIdentifier: b64(sm), idShortPath, fileName, file });
  const get = (idShortPath: string, submodelIdentifier = b64(sm)) => client.generated.getFileByPathSubmodelRepo({ submodelIdentifier, idShortPath });
  const del = (idShortPath: string, submodelIdentifier = b64(sm)) => client.generated.deleteFileByPathSubmodelRepo({ submodelIdentifier, idShortPath });

  it('a File: put stores the bytes and makes the value a tfp of this tenant, get gives the bytes, delete drops the value', async () => {
    const { wire, tenant, api } = client;
    expect(await generatedFailure(get('Manual'))).toMatchObject({ status: 404, code: '404', text: expect.stringContaining('has no value') });

    const pdf = binary(3 * 1024 * 1024 + 17); // several chunks of the blob store
    await put('Manual', new File([pdf], 'Manual Ö.pdf', { type: 'application/pdf' }), 'Manual Ö.pdf');
    expect(wire.at(-1)).toMatchObject({ method: 'PUT', url: `${api}/submodels/${b64(sm)}/submodel-elements/Manual/attachment`, status: 204 });
    const manual = await element('Manual');
    expect(manual).toEqual({ modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: expect.stringMatching(tfpOf(tenant, 'Manual Ö.pdf')) });

    const got = await get('Manual');
    expect((await bytesOf(got)).equals(pdf)).toBe(true);
    expect(got.type).toBe('application/pdf');
    expect(wire.at(-1)).toMatchObject({ status: 200, contentType: 'application/pdf', disposition: `attachment; filename="Manual _.pdf"; filename*=UTF-8''Manual%20%C3%96.pdf` });

    // A second upload: a new file, a new tfp, and the content type of the upload.
    await put('Manual', new File(['plain text'], 'manual.txt', { type: 'text/plain' }));
    const again = await element('Manual');
    expect(again.contentType).toBe('text/plain');
    expect(again.value).toMatch(tfpOf(tenant, 'manual.txt'));
    expect(await (await get('Manual')).text()).toBe('plain text');

    await del('Manual');
    expect(wire.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
    expect(await element('Manual')).toEqual({ modelType: 'File', idShort: 'Manual', contentType: 'text/plain' });
    expect((await generatedFailure(get('Manual'))).status).toBe(404);
    expect((await generatedFailure(del('Manual'))).status).toBe(404);
  });

  it('a File nested in a collection and in a list (the SDK URL-encodes `[0]`)', async () => {
    const { tenant, wire } = client;
    await put('Docs.Deep', new File(['deep'], 'deep.txt', { type: 'text/plain' }));
    expect((await element('Docs.Deep')).value).toMatch(tfpOf(tenant, 'deep.txt'));
    expect(await (await get('Docs.Deep')).text()).toBe('deep');

    await put('Sheets[0]', new File(['a;b\n1;2\n'], 'sheet.csv', { type: 'text/csv' }));
    expect(wire.at(-1)?.url).toContain('/submodel-elements/Sheets%5B0%5D/attachment');
    expect((await element('Sheets[0]')).value).toMatch(tfpOf(tenant, 'sheet.csv'));
    expect(await (await get('Sheets[0]')).text()).toBe('a;b\n1;2\n');
    await del('Sheets[0]');
    expect((await element('Sheets[0]')).value).toBeUndefined();
    await del('Docs.Deep');
  });

  it('a Blob: the attachment is its value, base64 in the element', async () => {
    const raw = binary(5000);
    // A plain Blob, as most SDK callers will pass one: the bytes and the content type are what count here.
    await put('Raw', new Blob([raw], { type: 'application/x-raw' }));
    const blob = await element('Raw', 'withBlobValue');
    expect(blob).toEqual({ modelType: 'Blob', idShort: 'Raw', contentType: 'application/x-raw', value: raw.toString('base64') });
    const got = await get('Raw');
    expect((await bytesOf(got)).equals(raw)).toBe(true);
    expect(got.type).toBe('application/x-raw');
    await del('Raw');
    expect(await element('Raw', 'withBlobValue')).toEqual({ modelType: 'Blob', idShort: 'Raw', contentType: 'application/x-raw' });
    expect((await generatedFailure(get('Raw'))).status).toBe(404);
  });

  it('a File whose value is a link: get fails with 404 saying so; the value stays', async () => {
    const link = await generatedFailure(get('Link'));
    expect(link).toMatchObject({ status: 404, code: '404' });
    expect(link.text).toContain("is a link ('https://example.com/manual.pdf')");
    expect((await element('Link')).value).toBe('https://example.com/manual.pdf');
  });

  it('an element that is neither File nor Blob: get, put and delete fail with 400; nothing changes', async () => {
    for (const call of [() => get('Prop'), () => put('Prop', new File(['x'], 'x.txt', { type: 'text/plain' })), () => del('Prop'), () => get('Docs'), () => put('Docs', new Blob(['x']))]) {
      const refused = await generatedFailure(call());
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('attachments belong to File and Blob elements');
    }
    expect(await element('Prop')).toEqual({ modelType: 'Property', idShort: 'Prop', valueType: 'xs:string', value: 'x' });
  });

  it('an absent element or submodel: 404', async () => {
    expect(await generatedFailure(get('Nothing'))).toMatchObject({ status: 404, code: '404' });
    expect(await generatedFailure(put('Nothing', new Blob(['x'])))).toMatchObject({ status: 404, code: '404' });
    expect(await generatedFailure(del('Docs.Nothing'))).toMatchObject({ status: 404, code: '404' });
    expect(await generatedFailure(get('Manual', b64('urn:e2e:sm:absent')))).toMatchObject({ status: 404, code: '404' });
    expect(await generatedFailure(del('Manual', b64('urn:e2e:sm:absent')))).toMatchObject({ status: 404, code: '404' });
  });

  it('a body without the file part, or not multipart at all: 400 and 415', async () => {
    // The generated API leaves out `file` when it is not given: the form has only `fileName`.
    const missing = await generatedFailure(client.generated.putFileByPathSubmodelRepo({ submodelIdentifier: b64(sm), idShortPath: 'Manual', fileName: 'x.pdf' }));
    expect(missing).toMatchObject({ status: 400, text: "The form needs a 'file' part." });
    const notMultipart = await generatedFailure(
      client.generated.putFileByPathSubmodelRepo({ submodelIdentifier: b64(sm), idShortPath: 'Manual', file: new Blob(['x']) }, { body: 'x', headers: { 'Content-Type': 'text/plain' } }),
    );
    expect(notMultipart.status).toBe(415);
    expect((await element('Manual')).value).toBeUndefined();
  });
});

describe('basyx-typescript-sdk AasRepositoryClient: attachments through a shell', () => {
  let client: TenantClient;
  const shell = 'urn:e2e:att:shell';
  const sm = 'urn:e2e:att:sm';
  const unreferenced = 'urn:e2e:att:sm:unreferenced';

  beforeAll(async () => {
    client = await tenantClient();
    await createSubmodel(client, documentsJson(sm));
    await createSubmodel(client, documentsJson(unreferenced));
    await createShell(client, shellJson(shell, [sm]));
  });

  const options = (idShortPath: string, submodelIdentifier = sm, aasIdentifier = shell) => ({ configuration: client.configuration, aasIdentifier, submodelIdentifier, idShortPath });
  const value = async (idShortPath: string, submodelIdentifier = sm) =>
    (jsonOf(ok(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier, idShortPath, extent: 'withBlobValue' }))) as Json).value;

  it('a File: put, get the same bytes, the value is a tfp, delete', async () => {
    const { wire, api, tenant } = client;
    const pdf = binary(10_000);
    ok(await shells.putFileByPathAasRepository({ ...options('Manual'), fileName: 'datasheet.pdf', file: new File([pdf], 'datasheet.pdf', { type: 'application/pdf' }) }));
    expect(wire.at(-1)).toMatchObject({ method: 'PUT', url: `${api}/shells/${b64(shell)}/submodels/${b64(sm)}/submodel-elements/Manual/attachment`, status: 204 });
    expect(await value('Manual')).toMatch(tfpOf(tenant, 'datasheet.pdf'));

    const got = ok(await shells.getFileByPathAasRepository(options('Manual')));
    expect((await bytesOf(got)).equals(pdf)).toBe(true);
    expect(got.type).toBe('application/pdf');
    expect(wire.at(-1)?.disposition).toBe(`attachment; filename="datasheet.pdf"; filename*=UTF-8''datasheet.pdf`);
    // The same file through the submodel repository route.
    expect((await bytesOf(await client.generated.getFileByPathSubmodelRepo({ submodelIdentifier: b64(sm), idShortPath: 'Manual' }))).equals(pdf)).toBe(true);

    // A plain Blob: stored under the SDK's fileName, not the part's name `blob`.
    ok(await shells.putFileByPathAasRepository({ ...options('Docs.Deep'), fileName: 'notes.txt', file: new Blob(['notes'], { type: 'text/plain' }) }));
    expect(await value('Docs.Deep')).toMatch(tfpOf(tenant, 'notes.txt'));
    expect(await ok(await shells.getFileByPathAasRepository(options('Docs.Deep'))).text()).toBe('notes');

    expect(ok(await shells.deleteFileByPathAasRepository(options('Manual')))).toBeUndefined();
    expect(wire.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
    expect(await value('Manual')).toBeUndefined();
    expect(failure(await shells.getFileByPathAasRepository(options('Manual'))).code).toBe('404');
    expect(failure(await shells.deleteFileByPathAasRepository(options('Manual'))).code).toBe('404');
  });

  it('a Blob: put, get, delete', async () => {
    const raw = binary(300);
    ok(await shells.putFileByPathAasRepository({ ...options('Raw'), fileName: 'raw.bin', file: new Blob([raw], { type: 'application/octet-stream' }) }));
    expect(await value('Raw')).toBe(raw.toString('base64'));
    expect((await bytesOf(ok(await shells.getFileByPathAasRepository(options('Raw'))))).equals(raw)).toBe(true);
    ok(await shells.deleteFileByPathAasRepository(options('Raw')));
    expect(await value('Raw')).toBeUndefined();
  });

  it('errors: a Property is 400; an absent element, a submodel the shell does not reference and an absent shell are 404', async () => {
    const file = () => new File(['x'], 'x.txt', { type: 'text/plain' });
    const property = failure(await shells.putFileByPathAasRepository({ ...options('Prop'), fileName: 'x.txt', file: file() }));
    expect(property.code).toBe('400');
    expect(property.text).toContain("The element 'Prop' is a Property");
    expect(failure(await shells.getFileByPathAasRepository(options('Prop'))).code).toBe('400');
    expect(failure(await shells.deleteFileByPathAasRepository(options('Prop'))).code).toBe('400');

    expect(failure(await shells.getFileByPathAasRepository(options('Nothing'))).code).toBe('404');
    for (const target of [options('Manual', unreferenced), options('Manual', sm, 'urn:e2e:att:absent-shell')]) {
      expect(failure(await shells.getFileByPathAasRepository(target)).code).toBe('404');
      expect(failure(await shells.putFileByPathAasRepository({ ...target, fileName: 'x.txt', file: file() })).code).toBe('404');
      expect(failure(await shells.deleteFileByPathAasRepository(target)).code).toBe('404');
    }
    // Nothing was stored in the unreferenced submodel.
    expect(await value('Manual', unreferenced)).toBeUndefined();
  });
});

describe('basyx-typescript-sdk: an upload over the server limit', () => {
  let small: TestServer;
  let client: TenantClient;
  beforeAll(async () => {
    small = await startTestServer(inject('databaseUrl'), { files: { uploadLimitBytes: 1024, store: { kind: 'postgres' } } });
    client = await tenantClient(small);
    await createShell(client, shellJson('urn:e2e:limit:shell', ['urn:e2e:limit:sm']));
    await createSubmodel(client, documentsJson('urn:e2e:limit:sm'));
  });
  afterAll(() => small?.close());

  it('is refused with 413 and stores nothing; exactly the limit is accepted', async () => {
    const { configuration } = client;
    const aasIdentifier = 'urn:e2e:limit:shell';
    const tooLarge = failure(await shells.putThumbnail({ configuration, aasIdentifier, fileName: 'big.png', file: new File([binary(1025)], 'big.png', { type: 'image/png' }) }));
    expect(tooLarge.code).toBe('413');
    expect(ok(await shells.getAssetInformation({ configuration, aasIdentifier })).defaultThumbnail).toBeNull();
    const attachment = { configuration, aasIdentifier, submodelIdentifier: 'urn:e2e:limit:sm', idShortPath: 'Manual' };
    expect(failure(await shells.putFileByPathAasRepository({ ...attachment, fileName: 'big.pdf', file: new File([binary(4096)], 'big.pdf', { type: 'application/pdf' }) })).code).toBe('413');
    expect(failure(await shells.getFileByPathAasRepository(attachment)).code).toBe('404');

    const exact = binary(1024);
    ok(await shells.putFileByPathAasRepository({ ...attachment, fileName: 'exact.pdf', file: new File([exact], 'exact.pdf', { type: 'application/pdf' }) }));
    expect((await bytesOf(ok(await shells.getFileByPathAasRepository(attachment)))).equals(exact)).toBe(true);
  });
});

/** The entries of a ZIP (an AASX package): name -> bytes, directories left out. */
async function unzip(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await JSZip.loadAsync(bytes);
  const entries = new Map<string, Buffer>();
  for (const entry of Object.values(zip.files).filter((e) => !e.dir)) entries.set(entry.name, await entry.async('nodebuffer'));
  return entries;
}

/** A tenant with a shell (a thumbnail uploaded), two submodels (an attachment uploaded to one) and two concept descriptions. */
async function environmentTenant() {
  const client = await tenantClient();
  const ids = {
    shell: 'https://example.com/aas/serialized/Pümpe',
    other: 'urn:e2e:ser:shell:other',
    sm: 'urn:e2e:ser:sm:documents',
    plain: 'urn:e2e:ser:sm:plain',
    cd: 'urn:e2e:ser:cd:documents',
    unusedCd: 'urn:e2e:ser:cd:unused',
  };
  await createSubmodel(client, documentsJson(ids.sm, ids.cd));
  await createSubmodel(client, { modelType: 'Submodel', id: ids.plain, idShort: 'Plain' });
  await createShell(client, shellJson(ids.shell, [ids.sm]));
  await createShell(client, shellJson(ids.other, [ids.plain]));
  for (const cd of [ids.cd, ids.unusedCd]) {
    const res = await fetch(`${client.api}/concept-descriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ modelType: 'ConceptDescription', id: cd, idShort: 'Concept' }),
    });
    expect(res.status).toBe(201);
  }
  const thumbnail = binary(2048);
  const manual = binary(4096).reverse();
  ok(await shells.putThumbnail({ configuration: client.configuration, aasIdentifier: ids.shell, fileName: 'pump.png', file: new File([thumbnail], 'pump.png', { type: 'image/png' }) }));
  ok(await shells.putFileByPathAasRepository({
    configuration: client.configuration,
    aasIdentifier: ids.shell,
    submodelIdentifier: ids.sm,
    idShortPath: 'Manual',
    fileName: 'manual.pdf',
    file: new File([manual], 'manual.pdf', { type: 'application/pdf' }),
  }));
  return { client, ids, thumbnail, manual };
}

describe('basyx-typescript-sdk SerializationAPIApi (generated, no client class): GET /serialization', () => {
  let env: Awaited<ReturnType<typeof environmentTenant>>;
  beforeAll(async () => {
    env = await environmentTenant();
  });

  /** What the server answers the same request directly (the query the SDK sent, the same Accept). */
  async function direct(url: string, accept?: string): Promise<Response> {
    const res = await fetch(url, accept ? { headers: { Accept: accept } } : {});
    expect(res.status).toBe(200);
    return res;
  }

  it('JSON: the environment of the shell and submodel asked for, with their concept descriptions; the same as the server answers directly', async () => {
    const { client, ids } = env;
    const api = new AasRepositoryService.SerializationAPIApi(client.accepting('application/json'));
    const blob = await api.generateSerializationByIds({ aasIds: [b64(ids.shell)], submodelIds: [b64(ids.sm)] });
    expect(blob.type).toBe('application/json');
    const sent = client.wire.at(-1)!;
    expect(sent.url).toBe(`${client.api}/serialization?aasIds=${b64(ids.shell)}&submodelIds=${b64(ids.sm)}`);
    const environment = JSON.parse(await blob.text()) as { assetAdministrationShells: Json[]; submodels: Json[]; conceptDescriptions?: Json[] };
    expect(environment).toEqual(await (await direct(sent.url, 'application/json')).json());

    expect(environment.assetAdministrationShells.map((s) => s.id)).toEqual([ids.shell]);
    expect(environment.submodels.map((s) => s.id)).toEqual([ids.sm]);
    expect(environment.conceptDescriptions?.map((c) => c.id)).toEqual([ids.cd]);
    // The documents are those the repository clients read: thumbnail and attachment as tfps.
    const shell = ok(await shells.getAssetAdministrationShellById({ configuration: client.configuration, aasIdentifier: ids.shell }));
    expect(environment.assetAdministrationShells[0]).toEqual(jsonOf(shell));
    expect(shell.assetInformation.defaultThumbnail?.path).toMatch(tfpOf(client.tenant, 'pump.png'));
    const sm = ok(await submodels.getSubmodelById({ configuration: client.configuration, submodelIdentifier: ids.sm, extent: 'withBlobValue' }));
    expect(environment.submodels[0]).toEqual(jsonOf(sm));

    // includeConceptDescriptions=false; several ids repeat the parameter.
    const without = JSON.parse(await (await api.generateSerializationByIds({ aasIds: [b64(ids.shell), b64(ids.other)], submodelIds: [b64(ids.sm), b64(ids.plain)], includeConceptDescriptions: false })).text());
    expect(client.wire.at(-1)?.url).toBe(
      `${client.api}/serialization?aasIds=${b64(ids.shell)}&aasIds=${b64(ids.other)}&submodelIds=${b64(ids.sm)}&submodelIds=${b64(ids.plain)}&includeConceptDescriptions=false`,
    );
    expect(without.assetAdministrationShells.map((s: Json) => s.id)).toEqual([ids.shell, ids.other]);
    expect(without.submodels.map((s: Json) => s.id)).toEqual([ids.sm, ids.plain]);
    expect(without.conceptDescriptions ?? []).toEqual([]);

    // No ids: the whole tenant, every concept description included.
    const all = JSON.parse(await (await api.generateSerializationByIds()).text());
    expect(all.assetAdministrationShells.map((s: Json) => s.id).sort()).toEqual([ids.shell, ids.other].sort());
    expect(all.submodels.map((s: Json) => s.id).sort()).toEqual([ids.sm, ids.plain].sort());
    expect(all.conceptDescriptions.map((c: Json) => c.id).sort()).toEqual([ids.cd, ids.unusedCd].sort());
    expect(all).toEqual(await (await direct(`${client.api}/serialization`, 'application/json')).json());
  });

  it('XML (what the SDK gets without an Accept header): the same bytes the server answers directly', async () => {
    const { client, ids } = env;
    const api = new SubmodelRepositoryService.SerializationAPIApi(client.configuration);
    const blob = await api.generateSerializationByIds({ submodelIds: [b64(ids.sm)] });
    expect(blob.type).toBe('application/xml');
    const xml = await blob.text();
    expect(xml).toBe(await (await direct(client.wire.at(-1)!.url)).text());
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?><environment xmlns="https:\/\/admin-shell.io\/aas\/3\/0">/);
    expect(xml).toContain(`<id>${ids.sm}</id>`);
    expect(xml).toContain(`<id>${ids.cd}</id>`);
    expect(xml).not.toContain('<assetAdministrationShell>');
  });

  it('AASX (+json and +xml): the environment and the files it names, the same entries the server answers directly', async () => {
    const { client, ids, thumbnail, manual } = env;
    const type = 'application/asset-administration-shell-package+json';
    const api = new ConceptDescriptionRepositoryService.SerializationAPIApi(client.accepting(type));
    const blob = await api.generateSerializationByIds({ aasIds: [b64(ids.shell)], submodelIds: [b64(ids.sm)] });
    expect(blob.type).toBe(type);
    const sent = client.wire.at(-1)!;
    expect(sent.disposition).toMatch(/^attachment; filename=".+\.aasx"; filename\*=UTF-8''.+\.aasx$/);
    const entries = await unzip(await bytesOf(blob));
    const own = await unzip(Buffer.from(await (await direct(sent.url, type)).arrayBuffer()));
    expect([...entries.keys()].sort()).toEqual([...own.keys()].sort());
    for (const [name, bytes] of entries) expect(bytes.equals(own.get(name)!), name).toBe(true);

    const environment = JSON.parse(entries.get('aasx/data.json')!.toString('utf8'));
    expect(environment.assetAdministrationShells.map((s: Json) => s.id)).toEqual([ids.shell]);
    expect(environment.conceptDescriptions.map((c: Json) => c.id)).toEqual([ids.cd]);
    // The tfps are rewritten to the package's part names, and those parts hold the uploaded bytes.
    const thumbnailPart = environment.assetAdministrationShells[0].assetInformation.defaultThumbnail.path as string;
    const manualPart = (environment.submodels[0].submodelElements as Json[]).find((e) => e.idShort === 'Manual')!.value as string;
    expect(thumbnailPart).toMatch(/^\/aasx\/files\//);
    expect(manualPart).toMatch(/^\/aasx\/files\//);
    expect(entries.get(thumbnailPart.slice(1))?.equals(thumbnail)).toBe(true);
    expect(entries.get(manualPart.slice(1))?.equals(manual)).toBe(true);
    // A link stays a link.
    expect((environment.submodels[0].submodelElements as Json[]).find((e) => e.idShort === 'Link')!.value).toBe('https://example.com/manual.pdf');

    const xmlType = 'application/asset-administration-shell-package+xml';
    const xmlPackage = await new AasRepositoryService.SerializationAPIApi(client.accepting(xmlType)).generateSerializationByIds({ aasIds: [b64(ids.shell)], submodelIds: [b64(ids.sm)] });
    expect(xmlPackage.type).toBe(xmlType);
    const xmlEntries = await unzip(await bytesOf(xmlPackage));
    expect(xmlEntries.get('aasx/data.xml')?.toString('utf8')).toContain(`<id>${ids.shell}</id>`);
    expect(xmlEntries.get(thumbnailPart.slice(1))?.equals(thumbnail)).toBe(true);
  });

  it('errors: an absent id is 404 naming it, an id not base64url-encoded is 400, a format the server lacks is 406', async () => {
    const { client } = env;
    const api = new AasRepositoryService.SerializationAPIApi(client.accepting('application/json'));
    const absent = await generatedFailure(api.generateSerializationByIds({ aasIds: [b64('urn:e2e:ser:absent')] }));
    expect(absent).toMatchObject({ status: 404, code: '404', text: expect.stringContaining('urn:e2e:ser:absent') });
    expect((await generatedFailure(api.generateSerializationByIds({ submodelIds: ['urn:not base64'] }))).status).toBe(400);
    const text = new AasRepositoryService.SerializationAPIApi(client.accepting('text/plain'));
    expect((await generatedFailure(text.generateSerializationByIds())).status).toBe(406);
  });
});

describe('basyx-typescript-sdk AasxFileClient: the AASX File Server (/packages)', () => {
  let client: TenantClient;
  let first: Buffer;
  let second: Buffer;
  const ids = { pump: 'https://example.com/aas/package/Pümpe', valve: 'urn:e2e:pkg:valve' };
  const AASX = 'application/asset-administration-shell-package';

  type PackageList = { paging_metadata: { cursor?: string }; result: Sdk.AasxFileService.PackageDescription[] };
  /**
   * The package list as the server sends it: the SDK's `data.result` is the whole PagedResult (see above), here
   * without the `pagingMetadata` alias the recording middleware adds for the other clients.
   */
  const packageList = (data: { result: unknown }): PackageList => {
    const { paging_metadata, result } = data.result as PackageList;
    return { paging_metadata, result };
  };

  beforeAll(async () => {
    // The packages are made by the server itself (GET /serialization as AASX, through the SDK) in another tenant.
    const source = await tenantClient();
    await createShell(source, shellJson(ids.pump, []));
    await createShell(source, shellJson(ids.valve, []));
    ok(await shells.putThumbnail({ configuration: source.configuration, aasIdentifier: ids.pump, fileName: 'pump.png', file: new File([binary(500)], 'pump.png', { type: 'image/png' }) }));
    const serialization = new AasRepositoryService.SerializationAPIApi(source.accepting(`${AASX}+json`));
    first = await bytesOf(await serialization.generateSerializationByIds({ aasIds: [b64(ids.pump)] }));
    second = await bytesOf(await serialization.generateSerializationByIds({ aasIds: [b64(ids.pump), b64(ids.valve)] }));
    client = await tenantClient();
  });

  it('posts a package, lists it (also by shell), gets the same bytes, replaces it, deletes it', async () => {
    const { configuration, wire, api } = client;
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration }))).result).toEqual([]);

    // The shells are read from the package; the client's aasIds are not taken.
    const created = ok(await packages.postAASXPackage({ configuration, aasIds: ['urn:not:in:package'], fileName: 'pump.aasx', file: new Blob([first], { type: AASX }) }));
    expect(created).toEqual({ packageId: expect.stringMatching(/^[0-9a-f-]{36}$/), aasIds: [ids.pump] });
    const packageId = created.packageId!;
    expect(wire.at(-1)).toMatchObject({ method: 'POST', url: `${api}/packages`, status: 201, location: `${api}/packages/${b64(packageId)}` });

    const listed = packageList(ok(await packages.getAllAASXPackageIds({ configuration })));
    expect(listed).toEqual({ paging_metadata: {}, result: [{ packageId, aasIds: [ids.pump] }] });
    expect(listed).toEqual(await (await fetch(`${api}/packages`)).json());
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration, aasId: b64(ids.pump) }))).result.map((p) => p.packageId)).toEqual([packageId]);
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration, aasId: b64(ids.valve) }))).result).toEqual([]);
    // The SDK sends aasId as it is; a plain id is not base64url.
    expect(failure(await packages.getAllAASXPackageIds({ configuration, aasId: ids.pump })).code).toBe('400');

    // The package id goes into the path base64url-encoded by the SDK.
    const got = ok(await packages.getAASXByPackageId({ configuration, packageId }));
    expect(wire.at(-1)).toMatchObject({ url: `${api}/packages/${b64(packageId)}`, status: 200, contentType: AASX, disposition: `attachment; filename="pump.aasx"; filename*=UTF-8''pump.aasx` });
    expect(got.type).toBe(AASX);
    expect((await bytesOf(got)).equals(first)).toBe(true);

    expect(ok(await packages.putAASXByPackageId({ configuration, packageId, fileName: 'pump-and-valve.aasx', file: new Blob([second], { type: AASX }) }))).toBeUndefined();
    expect(wire.at(-1)).toMatchObject({ method: 'PUT', status: 204 });
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration }))).result).toEqual([{ packageId, aasIds: [ids.pump, ids.valve] }]);
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration, aasId: b64(ids.valve) }))).result.map((p) => p.packageId)).toEqual([packageId]);
    const replaced = ok(await packages.getAASXByPackageId({ configuration, packageId }));
    expect((await bytesOf(replaced)).equals(second)).toBe(true);
    expect(wire.at(-1)?.disposition).toBe(`attachment; filename="pump-and-valve.aasx"; filename*=UTF-8''pump-and-valve.aasx`);

    expect(ok(await packages.deleteAASXByPackageId({ configuration, packageId }))).toBeUndefined();
    expect(wire.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
    expect(failure(await packages.getAASXByPackageId({ configuration, packageId })).code).toBe('404');
    expect(failure(await packages.deleteAASXByPackageId({ configuration, packageId })).code).toBe('404');
    expect(failure(await packages.putAASXByPackageId({ configuration, packageId, fileName: 'x.aasx', file: new Blob([first], { type: AASX }) })).code).toBe('404');
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration }))).result).toEqual([]);
  });

  it('lists several packages in upload order (neither the client nor the generated API has limit or cursor for /packages)', async () => {
    const { configuration } = client;
    const created: string[] = [];
    for (const n of [1, 2, 3]) created.push(ok(await packages.postAASXPackage({ configuration, fileName: `p${n}.aasx`, file: new Blob([first], { type: AASX }) })).packageId!);
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration }))).result.map((p) => p.packageId)).toEqual(created);
    for (const packageId of created) ok(await packages.deleteAASXByPackageId({ configuration, packageId }));
  });

  it('serves a package whose file name is outside Latin-1 (RFC 8187 Content-Disposition)', async () => {
    const { configuration, wire } = client;
    const packageId = ok(await packages.postAASXPackage({ configuration, fileName: 'Pumpe €.aasx', file: new Blob([first], { type: AASX }) })).packageId!;
    expect((await bytesOf(ok(await packages.getAASXByPackageId({ configuration, packageId })))).equals(first)).toBe(true);
    expect(wire.at(-1)).toMatchObject({ method: 'GET', status: 200, disposition: `attachment; filename="Pumpe _.aasx"; filename*=UTF-8''Pumpe%20%E2%82%AC.aasx` });
    ok(await packages.deleteAASXByPackageId({ configuration, packageId }));
  });

  it('refuses what is no package (400) and an unknown package id (404); nothing is stored', async () => {
    const { configuration } = client;
    const notZip = failure(await packages.postAASXPackage({ configuration, fileName: 'not.aasx', file: new Blob(['not a zip'], { type: AASX }) }));
    expect(notZip.code).toBe('400');
    expect(packageList(ok(await packages.getAllAASXPackageIds({ configuration }))).result).toEqual([]);
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(failure(await packages.getAASXByPackageId({ configuration, packageId: unknown })).code).toBe('404');
    expect(failure(await packages.deleteAASXByPackageId({ configuration, packageId: unknown })).code).toBe('404');
  });
});
