import { jsonization, types as aas } from '@aas-core-works/aas-core3.0-typescript';
import type * as Sdk from 'basyx-typescript-sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Exchange, failureCode, ok, sdk, tenantSdk } from '../support/basyx-sdk';
import { TestServer, b64, startTestServer } from '../support/server';

/*
 * The Eclipse BaSyx TypeScript SDK (`basyx-typescript-sdk`) as an AAS client would use it, against the running
 * server over real HTTP. Loaded through test/support/basyx-sdk.ts, which says why with `require`, why results are
 * compared as AAS JSON and not with `instanceof`, and how the wire is recorded (with the `pagingMetadata` alias the
 * SDK needs to page).
 */
const { AasRepositoryClient } = sdk;

type Shell = aas.AssetAdministrationShell;

let server: TestServer;
const client = new AasRepositoryClient();

/** A fresh tenant (isolated data) with an SDK configuration pointing at its AAS API. */
const tenantClient = () => tenantSdk(server);

/** The AAS JSON of a metamodel instance: compares what was sent with what came back, field by field. */
const jsonOf = (instance: aas.Class) => jsonization.toJsonable(instance);

function makeShell(id: string, idShort: string, serial: string, assetKind = aas.AssetKind.Instance): Shell {
  const assetInformation = new aas.AssetInformation(assetKind, `${id}#asset`, [new aas.SpecificAssetId('serial', serial)]);
  return new aas.AssetAdministrationShell(id, assetInformation, null, null, idShort);
}

const submodelRef = (submodelId: string) =>
  new aas.Reference(aas.ReferenceTypes.ModelReference, [new aas.Key(aas.KeyTypes.Submodel, submodelId)]);

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('basyx-typescript-sdk AasRepositoryClient: shells', () => {
  let configuration: Sdk.Configuration;
  let api: string;
  let wire: Exchange[];
  beforeAll(async () => ({ configuration, api, wire } = await tenantClient()));

  it('creates, reads, replaces and deletes a shell', async () => {
    // An id with characters that matter in a URL (`/ ? # + =`), non-ASCII and an astral code point: the SDK
    // base64url-encodes it (UTF-8, no padding) into the path, and the server must decode it back exactly.
    const id = 'https://example.com/aas/Pümpe?x=1+2&y=#frag/€/𝄞';
    const shell = makeShell(id, 'Pump', 'S-1');
    shell.description = [new aas.LangStringTextType('en', 'A pump'), new aas.LangStringTextType('de', 'Eine Pumpe')];

    const created = ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: shell }));
    expect(jsonOf(created)).toEqual(jsonOf(shell));
    expect(wire.at(-1)).toMatchObject({ method: 'POST', url: `${api}/shells`, status: 201 });

    const got = ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id }));
    expect(wire.at(-1)).toMatchObject({ method: 'GET', url: `${api}/shells/${b64(id)}`, status: 200 });
    expect(got.id).toBe(id);
    expect(got.idShort).toBe('Pump');
    expect(got.assetInformation.assetKind).toBe(aas.AssetKind.Instance);
    expect(got.assetInformation.specificAssetIds?.map((s) => [s.name, s.value])).toEqual([['serial', 'S-1']]);
    expect(got.description?.map((d) => [d.language, d.text])).toEqual([
      ['en', 'A pump'],
      ['de', 'Eine Pumpe'],
    ]);
    expect(jsonOf(got)).toEqual(jsonOf(shell));

    // Replace: a new idShort and description, a submodel reference.
    got.idShort = 'PumpRenamed';
    got.description = [new aas.LangStringTextType('en', 'A renamed pump')];
    got.submodels = [submodelRef('urn:sm:nameplate')];
    const replaced = await client.putAssetAdministrationShellById({ configuration, aasIdentifier: id, assetAdministrationShell: got });
    expect(ok(replaced)).toBeUndefined(); // 204 No Content: the SDK has nothing to convert
    expect(wire.at(-1)).toMatchObject({ method: 'PUT', status: 204 });
    const reread = ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id }));
    expect(reread.idShort).toBe('PumpRenamed');
    expect(reread.description?.map((d) => d.text)).toEqual(['A renamed pump']);
    expect(reread.submodels?.map((r) => r.keys[0].value)).toEqual(['urn:sm:nameplate']);
    expect(jsonOf(reread)).toEqual(jsonOf(got));

    // Delete, then it is gone: 404 for a read and for a second delete.
    expect(ok(await client.deleteAssetAdministrationShellById({ configuration, aasIdentifier: id }))).toBeUndefined();
    expect(wire.at(-1)).toMatchObject({ method: 'DELETE', url: `${api}/shells/${b64(id)}`, status: 204 });
    expect(failureCode(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id }))).toBe('404');
    expect(wire.at(-1)?.status).toBe(404);
    expect(failureCode(await client.deleteAssetAdministrationShellById({ configuration, aasIdentifier: id }))).toBe('404');
  });

  it('round-trips identifiers at the metamodel limit of 2000 characters', async () => {
    for (const id of [`urn:e2e:long:${'x'.repeat(2000 - 'urn:e2e:long:'.length)}`, `urn:e2e:${'€'.repeat(1991)}`, 'urn:e2e:inner space\tand tab']) {
      expect(id.length).toBeLessThanOrEqual(2000);
      const shell = new aas.AssetAdministrationShell(id, new aas.AssetInformation(aas.AssetKind.Instance, 'urn:e2e:long-asset'));
      ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: shell }));
      expect(ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id })).id).toBe(id);
      ok(await client.deleteAssetAdministrationShellById({ configuration, aasIdentifier: id }));
    }
  });

  it('refuses a duplicate id with 409 and keeps the first shell', async () => {
    const id = 'urn:e2e:duplicate';
    ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: makeShell(id, 'First', 'S-2') }));
    const again = await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: makeShell(id, 'Second', 'S-3') });
    expect(failureCode(again)).toBe('409');
    expect(ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id })).idShort).toBe('First');
  });

  it('answers 404 for a replacement of an absent shell and 400 for a body id that differs from the path', async () => {
    const absent = 'urn:e2e:absent';
    const put = await client.putAssetAdministrationShellById({ configuration, aasIdentifier: absent, assetAdministrationShell: makeShell(absent, 'X', 'S') });
    expect(failureCode(put)).toBe('404');

    const id = 'urn:e2e:mismatch';
    ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: makeShell(id, 'Mine', 'S-4') }));
    const other = await client.putAssetAdministrationShellById({ configuration, aasIdentifier: id, assetAdministrationShell: makeShell('urn:e2e:other', 'Other', 'S') });
    expect(failureCode(other)).toBe('400');
    expect(ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id })).idShort).toBe('Mine');
  });
});

describe('basyx-typescript-sdk AasRepositoryClient: listing', () => {
  let configuration: Sdk.Configuration;
  let wire: Exchange[];
  const ids = Array.from({ length: 7 }, (_, n) => `urn:e2e:list:${n}`);

  beforeAll(async () => {
    ({ configuration, wire } = await tenantClient());
    // idShort Pump for 0..2, Valve for 3..6; serial S0/S1/S2 round-robin; odd ones are types.
    for (const [n, id] of ids.entries()) {
      const shell = makeShell(id, n < 3 ? 'Pump' : 'Valve', `S${n % 3}`, n % 2 ? aas.AssetKind.Type : aas.AssetKind.Instance);
      ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: shell }));
    }
  });

  /** Pages through a listing with the cursor the client hands back, until it hands back none. */
  async function pageThrough(options: { limit: number; idShort?: string; assetIds?: Sdk.Models.AssetId[] }) {
    const pages: string[][] = [];
    const cursors: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await client.getAllAssetAdministrationShells({ configuration, ...options, cursor }));
      pages.push(page.result.map((s) => s.id));
      cursor = page.pagedResult?.cursor;
      if (cursor !== undefined) cursors.push(cursor);
      expect(pages.length, 'the listing does not end').toBeLessThan(20);
    } while (cursor !== undefined);
    return { pages, cursors };
  }

  it('pages through all shells in creation order, with a cursor on every page but the last', async () => {
    const before = wire.length;
    const { pages, cursors } = await pageThrough({ limit: 3 });
    expect(pages).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    expect(cursors).toHaveLength(2);
    expect(new Set(cursors).size).toBe(2);
    // On the wire: the spec's `paging_metadata` (and nothing else beside `result`), the cursor the client handed
    // back is the server's, and the last page has no cursor at all.
    const bodies = wire.slice(before).map((exchange) => exchange.body as Record<string, unknown>);
    expect(bodies.map((body) => Object.keys(body).sort())).toEqual(Array(3).fill(['paging_metadata', 'result']));
    expect(bodies.map((body) => body.paging_metadata)).toEqual([{ cursor: cursors[0] }, { cursor: cursors[1] }, {}]);
    expect(wire.slice(before).map((exchange) => new URL(exchange.url).searchParams.get('cursor'))).toEqual([null, ...cursors]);
  });

  it('ends without a cursor when the last page is exactly full, and keeps order with a page size of 1', async () => {
    expect((await pageThrough({ limit: 7 })).pages).toEqual([ids]);
    expect((await pageThrough({ limit: 250 })).pages).toEqual([ids]);
    const single = await pageThrough({ limit: 1 });
    expect(single.pages).toEqual(ids.map((id) => [id]));
    expect(single.cursors).toHaveLength(6);
  });

  it('lists everything without a limit (the server default page covers 7 shells)', async () => {
    const all = ok(await client.getAllAssetAdministrationShells({ configuration }));
    expect(all.result.map((s) => s.id)).toEqual(ids);
    expect(all.result.map((s) => s.idShort)).toEqual(['Pump', 'Pump', 'Pump', 'Valve', 'Valve', 'Valve', 'Valve']);
    expect(all.pagedResult?.cursor).toBeUndefined();
  });

  it('filters by idShort, also across pages', async () => {
    const pumps = ok(await client.getAllAssetAdministrationShells({ configuration, idShort: 'Pump' }));
    expect(pumps.result.map((s) => s.id)).toEqual(ids.slice(0, 3));
    expect((await pageThrough({ limit: 2, idShort: 'Valve' })).pages).toEqual([ids.slice(3, 5), ids.slice(5, 7)]);
    const none = ok(await client.getAllAssetAdministrationShells({ configuration, idShort: 'Nothing' }));
    expect(none.result).toEqual([]);
    expect(none.pagedResult?.cursor).toBeUndefined();
  });

  it('filters by assetIds (specific asset ids and the global asset id), all of them must match', async () => {
    const byAssetIds = async (assetIds: Sdk.Models.AssetId[]) =>
      ok(await client.getAllAssetAdministrationShells({ configuration, assetIds })).result.map((s) => s.id);

    expect(await byAssetIds([{ name: 'serial', value: 'S1' }])).toEqual([ids[1], ids[4]]);
    expect(await byAssetIds([{ name: 'globalAssetId', value: `${ids[5]}#asset` }])).toEqual([ids[5]]);
    expect(
      await byAssetIds([
        { name: 'serial', value: 'S1' },
        { name: 'globalAssetId', value: `${ids[4]}#asset` },
      ]),
    ).toEqual([ids[4]]);
    expect(await byAssetIds([{ name: 'serial', value: 'S9' }])).toEqual([]);
    // Combined with idShort and paged.
    expect((await pageThrough({ limit: 1, idShort: 'Valve', assetIds: [{ name: 'serial', value: 'S0' }] })).pages).toEqual([[ids[3]], [ids[6]]]);
  });

  it('rejects a limit beyond 250 with 400 rather than cutting it', async () => {
    expect(failureCode(await client.getAllAssetAdministrationShells({ configuration, limit: 251 }))).toBe('400');
  });
});

describe('basyx-typescript-sdk AasRepositoryClient: asset information', () => {
  let configuration: Sdk.Configuration;
  const id = 'urn:e2e:asset-info';
  beforeAll(async () => {
    ({ configuration } = await tenantClient());
    ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: makeShell(id, 'Motor', 'M-1') }));
  });

  it('reads and replaces the asset information, and the shell and asset id lookups follow', async () => {
    const before = ok(await client.getAssetInformation({ configuration, aasIdentifier: id }));
    expect(before.assetKind).toBe(aas.AssetKind.Instance);
    expect(before.globalAssetId).toBe(`${id}#asset`);
    expect(before.specificAssetIds?.map((s) => [s.name, s.value])).toEqual([['serial', 'M-1']]);

    const info = new aas.AssetInformation(
      aas.AssetKind.Type,
      'urn:e2e:motor-type',
      [new aas.SpecificAssetId('partNumber', 'P-42'), new aas.SpecificAssetId('manufacturer', 'ACME')],
      'urn:e2e:asset-type:motor',
    );
    expect(ok(await client.putAssetInformation({ configuration, aasIdentifier: id, assetInformation: info }))).toBeUndefined();

    const after = ok(await client.getAssetInformation({ configuration, aasIdentifier: id }));
    expect(jsonOf(after)).toEqual(jsonOf(info));
    expect(after.assetKind).toBe(aas.AssetKind.Type);
    expect(after.assetType).toBe('urn:e2e:asset-type:motor');
    expect(jsonOf(ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id })).assetInformation)).toEqual(jsonOf(info));

    const found = async (assetIds: Sdk.Models.AssetId[]) =>
      ok(await client.getAllAssetAdministrationShells({ configuration, assetIds })).result.map((s) => s.id);
    expect(await found([{ name: 'partNumber', value: 'P-42' }])).toEqual([id]);
    expect(await found([{ name: 'globalAssetId', value: 'urn:e2e:motor-type' }])).toEqual([id]);
    expect(await found([{ name: 'serial', value: 'M-1' }])).toEqual([]);
  });

  it('rejects invalid asset information with 400 and changes nothing', async () => {
    const current = ok(await client.getAssetInformation({ configuration, aasIdentifier: id }));
    // AASd-131: either a global asset id or at least one specific asset id.
    const invalid = new aas.AssetInformation(aas.AssetKind.Instance);
    expect(failureCode(await client.putAssetInformation({ configuration, aasIdentifier: id, assetInformation: invalid }))).toBe('400');
    expect(jsonOf(ok(await client.getAssetInformation({ configuration, aasIdentifier: id })))).toEqual(jsonOf(current));
  });

  it('answers 404 for the asset information of an absent shell', async () => {
    expect(failureCode(await client.getAssetInformation({ configuration, aasIdentifier: 'urn:e2e:nobody' }))).toBe('404');
  });
});

describe('basyx-typescript-sdk AasRepositoryClient: submodel references', () => {
  let configuration: Sdk.Configuration;
  const id = 'urn:e2e:refs';
  const submodelIds = ['urn:e2e:sm:nameplate', 'https://example.com/sm/technical-data?v=2', 'urn:e2e:sm:ÜberBlick', 'urn:e2e:sm:docs'];
  beforeAll(async () => {
    ({ configuration } = await tenantClient());
    ok(await client.postAssetAdministrationShell({ configuration, assetAdministrationShell: makeShell(id, 'Refs', 'R-1') }));
  });

  const refIds = async (options: { limit?: number; cursor?: string } = {}) => {
    const page = ok(await client.getAllSubmodelReferences({ configuration, aasIdentifier: id, ...options }));
    return { ids: page.result.map((r) => r.keys[0].value), cursor: page.pagedResult?.cursor };
  };

  it('adds, lists, pages and removes references', async () => {
    expect((await refIds()).ids).toEqual([]);
    for (const smId of submodelIds) {
      const added = ok(await client.postSubmodelReference({ configuration, aasIdentifier: id, submodelReference: submodelRef(smId) }));
      expect(jsonOf(added)).toEqual(jsonOf(submodelRef(smId)));
    }
    expect(await refIds()).toEqual({ ids: submodelIds, cursor: undefined });

    // Paged with the client's cursor.
    const first = await refIds({ limit: 3 });
    expect(first.ids).toEqual(submodelIds.slice(0, 3));
    expect(first.cursor).toEqual(expect.any(String));
    expect(await refIds({ limit: 3, cursor: first.cursor })).toEqual({ ids: submodelIds.slice(3), cursor: undefined });

    // Removing one (its id base64url-encoded by the SDK into the path) leaves the others in order.
    ok(await client.deleteSubmodelReferenceById({ configuration, aasIdentifier: id, submodelIdentifier: submodelIds[1] }));
    const remaining = [submodelIds[0], ...submodelIds.slice(2)];
    expect((await refIds()).ids).toEqual(remaining);
    const shell = ok(await client.getAssetAdministrationShellById({ configuration, aasIdentifier: id }));
    expect(shell.submodels?.map((r) => r.keys[0].value)).toEqual(remaining);

    expect(failureCode(await client.deleteSubmodelReferenceById({ configuration, aasIdentifier: id, submodelIdentifier: submodelIds[1] }))).toBe('404');
  });

  it('refuses a duplicate reference with 409 and a reference that is not to a submodel with 400', async () => {
    const smId = 'urn:e2e:sm:unique';
    ok(await client.postSubmodelReference({ configuration, aasIdentifier: id, submodelReference: submodelRef(smId) }));
    expect(failureCode(await client.postSubmodelReference({ configuration, aasIdentifier: id, submodelReference: submodelRef(smId) }))).toBe('409');
    const external = new aas.Reference(aas.ReferenceTypes.ExternalReference, [new aas.Key(aas.KeyTypes.GlobalReference, 'urn:x')]);
    expect(failureCode(await client.postSubmodelReference({ configuration, aasIdentifier: id, submodelReference: external }))).toBe('400');
    expect((await refIds()).ids.filter((v) => v === smId)).toHaveLength(1);
  });

  it('answers 404 for the references of an absent shell', async () => {
    const absent = 'urn:e2e:refs:absent';
    expect(failureCode(await client.getAllSubmodelReferences({ configuration, aasIdentifier: absent }))).toBe('404');
    expect(failureCode(await client.postSubmodelReference({ configuration, aasIdentifier: absent, submodelReference: submodelRef('urn:x') }))).toBe('404');
  });
});
