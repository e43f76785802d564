import { jsonization, types as aas } from '@aas-core-works/aas-core3.0-typescript';
import type * as Sdk from 'basyx-typescript-sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Exchange, failureCode, fixture, generatedFailure, ok, sdk, tenantSdk } from '../support/basyx-sdk';
import { TestServer, b64, startTestServer } from '../support/server';

/*
 * The Eclipse BaSyx TypeScript SDK (`basyx-typescript-sdk`) against the running server over real HTTP: its
 * SubmodelRepositoryClient and ConceptDescriptionRepositoryClient, and, for the Submodel Repository routes the
 * client class does not wrap (PATCH of a submodel or element, $reference, $path, element $metadata), the SDK's
 * own generated API class underneath it (`SubmodelRepositoryService.SubmodelRepositoryAPIApi`), as an SDK user
 * would reach them.
 *
 * Loaded through test/support/basyx-sdk.ts, with `require` for the reasons given there (the ESM bundle cannot load
 * the metamodel's ESM build under Node). What the SDK returns carries the prototypes of its own inlined metamodel
 * copy, so results are compared as AAS JSON (`jsonization.toJsonable`) and field by field, never with `instanceof`.
 *
 * SDK findings (basyx-typescript-sdk 1.0.2), worked around here rather than in the server:
 * - The generated client reads `pagingMetadata`, the AAS API V3.0 PagedResult names it `paging_metadata`: the
 *   recording middleware of test/support/basyx-sdk.ts adds the alias.
 * - `getAllSubmodels({ semanticId })`, `getAllConceptDescriptions({ isCaseOf, dataSpecificationRef })` are typed
 *   `string`, but the client JSON-encodes the argument before base64url-encoding it. A string therefore reaches
 *   the server as a quoted JSON string literal (`"urn:x"` with the quotes), which is neither a Reference nor the
 *   key value the caller meant. The only way to use these filters is to pass the Reference's JSON object, cast
 *   to `string`, which is what `referenceFilter` does below.
 */
const { SubmodelRepositoryClient, ConceptDescriptionRepositoryClient, SubmodelRepositoryService } = sdk;

let server: TestServer;
const submodels = new SubmodelRepositoryClient();
const cds = new ConceptDescriptionRepositoryClient();

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

interface TenantClient {
  configuration: Sdk.Configuration;
  api: string;
  wire: Exchange[];
  /** The SDK's generated Submodel Repository API, for the routes SubmodelRepositoryClient does not wrap. */
  generated: Sdk.SubmodelRepositoryService.SubmodelRepositoryAPIApi;
}

async function tenantClient(): Promise<TenantClient> {
  const client = await tenantSdk(server);
  return { ...client, generated: new SubmodelRepositoryService.SubmodelRepositoryAPIApi(client.configuration) };
}

const jsonOf = (instance: aas.Class) => jsonization.toJsonable(instance);

type Json = Record<string, unknown>;

const submodelOf = (json: Json): aas.Submodel => fixture(jsonization.submodelFromJsonable, json);
const elementOf = (json: Json): aas.ISubmodelElement => fixture(jsonization.submodelElementFromJsonable, json);
const conceptDescriptionOf = (json: Json): aas.ConceptDescription => fixture(jsonization.conceptDescriptionFromJsonable, json);

const globalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });

/** A Reference as the SDK's reference filters need it: its JSON, cast to the `string` the SDK declares. */
const referenceFilter = (reference: Json) => reference as unknown as string;

const property = (idShort: string | undefined, valueType: string, value?: string): Json => ({
  modelType: 'Property',
  ...(idShort === undefined ? {} : { idShort }),
  valueType,
  ...(value === undefined ? {} : { value }),
});

const LOGO = Buffer.from('not really a png').toString('base64');

/** A submodel with one element of most kinds, nested a collection and a list deep. */
function technicalData(id: string): Json {
  return {
    modelType: 'Submodel',
    id,
    idShort: 'TechnicalData',
    semanticId: globalRef('urn:sem:technical-data'),
    submodelElements: [
      property('MaxRpm', 'xs:int', '3000'),
      { modelType: 'MultiLanguageProperty', idShort: 'Name', value: [{ language: 'en', text: 'Pump' }, { language: 'de', text: 'Pumpe' }] },
      { modelType: 'Range', idShort: 'Temperature', valueType: 'xs:double', min: '-20', max: '80' },
      {
        modelType: 'SubmodelElementCollection',
        idShort: 'Motor',
        value: [
          property('Power', 'xs:double', '5.5'),
          {
            modelType: 'SubmodelElementList',
            idShort: 'Phases',
            typeValueListElement: 'Property',
            valueTypeListElement: 'xs:double',
            value: [property(undefined, 'xs:double', '230'), property(undefined, 'xs:double', '231')],
          },
        ],
      },
      { modelType: 'File', idShort: 'Manual', contentType: 'application/pdf', value: 'manual.pdf' },
      { modelType: 'Blob', idShort: 'Logo', contentType: 'image/png', value: LOGO },
      { modelType: 'Operation', idShort: 'Start' },
    ],
  };
}

/** What the server answers by default: Blob values are left out (extent withoutBlobValue). */
function withoutBlobValues(json: Json): Json {
  const copy = structuredClone(json);
  const logo = (copy.submodelElements as Json[]).find((e) => e.idShort === 'Logo');
  if (logo) delete logo.value;
  return copy;
}

describe('basyx-typescript-sdk SubmodelRepositoryClient: submodels', () => {
  let client: TenantClient;
  beforeAll(async () => {
    client = await tenantClient();
  });

  it('creates a submodel (201, Location, ETag) and reads it back as sent', async () => {
    const { configuration, api, wire } = client;
    const id = 'urn:e2e:sm:create';
    const sent = technicalData(id);
    const created = ok(await submodels.postSubmodel({ configuration, submodel: submodelOf(sent) }));
    expect(jsonOf(created)).toEqual(sent);
    const post = wire[wire.length - 1];
    expect(post.status).toBe(201);
    expect(post.location).toBe(`${api}/submodels/${b64(id)}`);
    expect(post.etag).toEqual(expect.any(String));

    const read = ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id }));
    expect(read.id).toBe(id);
    expect(read.idShort).toBe('TechnicalData');
    expect(read.semanticId?.keys[0].value).toBe('urn:sem:technical-data');
    expect(read.submodelElements?.map((e) => e.idShort)).toEqual(['MaxRpm', 'Name', 'Temperature', 'Motor', 'Manual', 'Logo', 'Start']);
    expect(jsonOf(read)).toEqual(withoutBlobValues(sent));
    const withBlob = ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id, extent: 'withBlobValue' }));
    expect(jsonOf(withBlob)).toEqual(sent);
    // level=core: the submodel's elements without their children.
    const core = ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id, level: 'core' }));
    const motor = core.submodelElements?.find((e) => e.idShort === 'Motor') as aas.SubmodelElementCollection;
    expect(motor.value ?? []).toEqual([]);
    expect(core.submodelElements).toHaveLength(7);
  });

  it('refuses a duplicate id with 409 and answers 404 for an absent submodel', async () => {
    const { configuration } = client;
    const id = 'urn:e2e:sm:dup';
    ok(await submodels.postSubmodel({ configuration, submodel: submodelOf({ modelType: 'Submodel', id, idShort: 'First' }) }));
    expect(failureCode(await submodels.postSubmodel({ configuration, submodel: submodelOf({ modelType: 'Submodel', id, idShort: 'Second' }) }))).toBe('409');
    expect(ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id })).idShort).toBe('First');
    expect(failureCode(await submodels.getSubmodelById({ configuration, submodelIdentifier: 'urn:e2e:sm:absent' }))).toBe('404');
  });

  it('replaces a submodel with PUT (204, no body), and refuses an absent one (404) and a differing id (400)', async () => {
    const { configuration, wire } = client;
    const id = 'https://example.com/ids/sm/replace?v=1&x=ü';
    ok(await submodels.postSubmodel({ configuration, submodel: submodelOf(technicalData(id)) }));
    const replacement = { modelType: 'Submodel', id, idShort: 'Replaced', kind: 'Template', submodelElements: [property('Only', 'xs:string', 'one')] };
    expect(ok(await submodels.putSubmodelById({ configuration, submodelIdentifier: id, submodel: submodelOf(replacement) }))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    expect(jsonOf(ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id })))).toEqual(replacement);

    const absent = 'urn:e2e:sm:put-absent';
    expect(failureCode(await submodels.putSubmodelById({ configuration, submodelIdentifier: absent, submodel: submodelOf({ modelType: 'Submodel', id: absent }) }))).toBe('404');
    const other = await submodels.putSubmodelById({ configuration, submodelIdentifier: id, submodel: submodelOf({ modelType: 'Submodel', id: 'urn:e2e:sm:other' }) });
    expect(failureCode(other)).toBe('400');
    expect(ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id })).idShort).toBe('Replaced');
  });

  it('updates a submodel with PATCH (the generated API): given attributes replace, the elements stay', async () => {
    const { configuration, generated } = client;
    const id = 'urn:e2e:sm:patch';
    ok(await submodels.postSubmodel({ configuration, submodel: submodelOf(technicalData(id)) }));
    await generated.patchSubmodelById({ submodelIdentifier: b64(id), submodel: { modelType: 'Submodel', id, idShort: 'Patched', category: 'PARAMETER' } as never });
    const patched = ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id }));
    expect(patched.idShort).toBe('Patched');
    expect(patched.category).toBe('PARAMETER');
    expect(patched.semanticId?.keys[0].value).toBe('urn:sem:technical-data');
    expect(patched.submodelElements).toHaveLength(7);
    expect(await generatedFailure(generated.patchSubmodelById({ submodelIdentifier: b64('urn:e2e:sm:nope'), submodel: { modelType: 'Submodel', id: 'urn:e2e:sm:nope' } as never }))).toMatchObject({ status: 404, code: '404' });
  });

  it('deletes a submodel: 204, then 404 for reads and for a second delete', async () => {
    const { configuration, wire } = client;
    const id = 'urn:e2e:sm:delete';
    ok(await submodels.postSubmodel({ configuration, submodel: submodelOf({ modelType: 'Submodel', id }) }));
    expect(ok(await submodels.deleteSubmodelById({ configuration, submodelIdentifier: id }))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    expect(failureCode(await submodels.getSubmodelById({ configuration, submodelIdentifier: id }))).toBe('404');
    expect(failureCode(await submodels.deleteSubmodelById({ configuration, submodelIdentifier: id }))).toBe('404');
  });
});

describe('basyx-typescript-sdk SubmodelRepositoryClient: listing', () => {
  let client: TenantClient;
  const ids = Array.from({ length: 7 }, (_, n) => `urn:e2e:sm:list:${n}`);
  // idShort Nameplate for 0..2, Docs for 3..6; semantic ids alternate between two concepts.
  const semantic = (n: number) => (n % 2 ? 'urn:sem:even' : 'urn:sem:odd');

  beforeAll(async () => {
    client = await tenantClient();
    for (const [n, id] of ids.entries()) {
      const json = {
        modelType: 'Submodel',
        id,
        idShort: n < 3 ? 'Nameplate' : 'Docs',
        semanticId: globalRef(semantic(n)),
        submodelElements: [property('N', 'xs:int', String(n)), { modelType: 'SubmodelElementCollection', idShort: 'C', value: [property('Inner', 'xs:string', 'x')] }],
      };
      ok(await submodels.postSubmodel({ configuration: client.configuration, submodel: submodelOf(json) }));
    }
  });

  async function pageThrough(options: { limit: number; idShort?: string; semanticId?: string }) {
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await submodels.getAllSubmodels({ configuration: client.configuration, ...options, cursor }));
      pages.push(page.result.map((s) => s.id));
      cursor = page.pagedResult?.cursor;
      expect(pages.length, 'the listing does not end').toBeLessThan(20);
    } while (cursor !== undefined);
    return pages;
  }

  it('pages through all submodels in creation order to the end', async () => {
    const before = client.wire.length;
    expect(await pageThrough({ limit: 3 })).toEqual([ids.slice(0, 3), ids.slice(3, 6), ids.slice(6)]);
    // The wire carries the spec's `paging_metadata`, without a cursor on the last page.
    const bodies = client.wire.slice(before).map((exchange) => exchange.body as Json);
    expect(bodies.map((body) => Object.keys(body).sort())).toEqual(Array(3).fill(['paging_metadata', 'result']));
    expect(bodies[2].paging_metadata).toEqual({});
    expect(await pageThrough({ limit: 7 })).toEqual([ids]);
    expect(await pageThrough({ limit: 1 })).toEqual(ids.map((id) => [id]));
    const all = ok(await submodels.getAllSubmodels({ configuration: client.configuration }));
    expect(all.result.map((s) => s.id)).toEqual(ids);
    expect(all.pagedResult?.cursor).toBeUndefined();
  });

  it('filters by idShort, also across pages', async () => {
    expect(await pageThrough({ limit: 2, idShort: 'Nameplate' })).toEqual([ids.slice(0, 2), ids.slice(2, 3)]);
    expect(await pageThrough({ limit: 250, idShort: 'Docs' })).toEqual([ids.slice(3)]);
    expect(await pageThrough({ limit: 5, idShort: 'Nothing' })).toEqual([[]]);
  });

  it('filters by semanticId (a Reference), also across pages and with idShort', async () => {
    const odd = referenceFilter(globalRef('urn:sem:odd'));
    const even = referenceFilter(globalRef('urn:sem:even'));
    expect(await pageThrough({ limit: 250, semanticId: odd })).toEqual([[ids[0], ids[2], ids[4], ids[6]]]);
    expect(await pageThrough({ limit: 2, semanticId: even })).toEqual([[ids[1], ids[3]], [ids[5]]]);
    expect(await pageThrough({ limit: 1, semanticId: even, idShort: 'Docs' })).toEqual([[ids[3]], [ids[5]]]);
    expect(await pageThrough({ limit: 250, semanticId: referenceFilter(globalRef('urn:sem:none')) })).toEqual([[]]);
  });

  it('lists at level core (elements without their children)', async () => {
    const core = ok(await submodels.getAllSubmodels({ configuration: client.configuration, limit: 1, level: 'core' }));
    const collection = core.result[0].submodelElements?.find((e) => e.idShort === 'C') as aas.SubmodelElementCollection;
    expect(collection.value ?? []).toEqual([]);
    const deep = ok(await submodels.getAllSubmodels({ configuration: client.configuration, limit: 1 }));
    expect((deep.result[0].submodelElements?.find((e) => e.idShort === 'C') as aas.SubmodelElementCollection).value?.map((e) => e.idShort)).toEqual(['Inner']);
  });

  it('rejects a limit beyond 250 and a forged cursor with 400', async () => {
    expect(failureCode(await submodels.getAllSubmodels({ configuration: client.configuration, limit: 251 }))).toBe('400');
    expect(failureCode(await submodels.getAllSubmodels({ configuration: client.configuration, cursor: 'forged' }))).toBe('400');
  });
});

describe('basyx-typescript-sdk SubmodelRepositoryClient: submodel elements', () => {
  let client: TenantClient;
  const id = 'urn:e2e:sm:elements';
  const sent = technicalData(id);

  beforeAll(async () => {
    client = await tenantClient();
    ok(await submodels.postSubmodel({ configuration: client.configuration, submodel: submodelOf(sent) }));
  });

  const element = async (idShortPath: string) =>
    ok(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier: id, idShortPath }));
  const elementFailure = async (idShortPath: string) =>
    failureCode(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier: id, idShortPath }));

  it('pages through the top-level elements to the end', async () => {
    const { configuration } = client;
    const idShorts: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await submodels.getAllSubmodelElements({ configuration, submodelIdentifier: id, limit: 3, cursor }));
      idShorts.push(page.result.map((e) => e.idShort!));
      cursor = page.pagedResult?.cursor;
      expect(idShorts.length).toBeLessThan(10);
    } while (cursor !== undefined);
    expect(idShorts).toEqual([['MaxRpm', 'Name', 'Temperature'], ['Motor', 'Manual', 'Logo'], ['Start']]);
    const all = ok(await submodels.getAllSubmodelElements({ configuration, submodelIdentifier: id }));
    expect(all.result.map((e) => jsonOf(e))).toEqual(withoutBlobValues(sent).submodelElements);
    expect(failureCode(await submodels.getAllSubmodelElements({ configuration, submodelIdentifier: 'urn:e2e:sm:absent' }))).toBe('404');
  });

  it('gets elements by path: top level, nested in a collection, by list index', async () => {
    const maxRpm = (await element('MaxRpm')) as aas.Property;
    expect(maxRpm.idShort).toBe('MaxRpm');
    expect(maxRpm.value).toBe('3000');
    expect(maxRpm.valueType).toBe(aas.DataTypeDefXsd.Int);

    const power = (await element('Motor.Power')) as aas.Property;
    expect(jsonOf(power)).toEqual(property('Power', 'xs:double', '5.5'));
    const phases = (await element('Motor.Phases')) as aas.SubmodelElementList;
    expect(phases.value?.map((e) => (e as aas.Property).value)).toEqual(['230', '231']);
    // `Motor.Phases[1]` goes over the wire as `Motor.Phases%5B1%5D` (the SDK URL-encodes the path).
    const second = (await element('Motor.Phases[1]')) as aas.Property;
    expect(jsonOf(second)).toEqual(property(undefined, 'xs:double', '231'));
    expect(client.wire[client.wire.length - 1].url).toContain('/submodel-elements/Motor.Phases%5B1%5D');

    const logo = (await element('Logo')) as aas.Blob;
    expect(logo.contentType).toBe('image/png');
    expect(logo.value).toBeNull();
    const logoWithValue = ok(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier: id, idShortPath: 'Logo', extent: 'withBlobValue' })) as aas.Blob;
    expect(Buffer.from(logoWithValue.value!).toString('base64')).toBe(LOGO);
    // level=core: the element's direct children, without theirs.
    const motorCore = ok(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier: id, idShortPath: 'Motor', level: 'core' })) as aas.SubmodelElementCollection;
    expect(motorCore.value?.map((e) => e.idShort)).toEqual(['Power', 'Phases']);
    expect((motorCore.value?.[1] as aas.SubmodelElementList).value ?? []).toEqual([]);
  });

  it('answers 404 for paths that lead nowhere and 400 for malformed ones', async () => {
    expect(await elementFailure('Nothing')).toBe('404');
    expect(await elementFailure('Motor.Phases[2]')).toBe('404');
    expect(await elementFailure('MaxRpm.Inner')).toBe('404');
    expect(await elementFailure('Motor..Power')).toBe('400');
    expect(await elementFailure('Motor.Phases[x]')).toBe('400');
    expect(failureCode(await submodels.getSubmodelElementByPath({ configuration: client.configuration, submodelIdentifier: 'urn:e2e:sm:absent', idShortPath: 'MaxRpm' }))).toBe('404');
  });

  it('posts elements at the top, into a collection and onto a list; a duplicate idShort is 409', async () => {
    const { configuration, api, wire } = client;
    const serial = property('Serial', 'xs:string', 'S-1');
    const created = ok(await submodels.postSubmodelElement({ configuration, submodelIdentifier: id, submodelElement: elementOf(serial) }));
    expect(jsonOf(created)).toEqual(serial);
    expect(wire[wire.length - 1].status).toBe(201);
    expect(wire[wire.length - 1].location).toBe(`${api}/submodels/${b64(id)}/submodel-elements/Serial`);
    expect(jsonOf(await element('Serial'))).toEqual(serial);

    const voltage = property('Voltage', 'xs:int', '400');
    expect(jsonOf(ok(await submodels.postSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor', submodelElement: elementOf(voltage) })))).toEqual(voltage);
    expect(jsonOf(await element('Motor.Voltage'))).toEqual(voltage);

    const third = property(undefined, 'xs:double', '232');
    expect(jsonOf(ok(await submodels.postSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Phases', submodelElement: elementOf(third) })))).toEqual(third);
    expect(wire[wire.length - 1].location).toBe(`${api}/submodels/${b64(id)}/submodel-elements/${encodeURIComponent('Motor.Phases[2]')}`);
    expect(jsonOf(await element('Motor.Phases[2]'))).toEqual(third);

    expect(failureCode(await submodels.postSubmodelElement({ configuration, submodelIdentifier: id, submodelElement: elementOf(property('Serial', 'xs:string', 'again')) }))).toBe('409');
    expect(failureCode(await submodels.postSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor', submodelElement: elementOf(voltage) }))).toBe('409');
    // A Property holds no elements; an absent parent is 404.
    expect(failureCode(await submodels.postSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'MaxRpm', submodelElement: elementOf(property('X', 'xs:string')) }))).toBe('400');
    expect(failureCode(await submodels.postSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Nope', submodelElement: elementOf(property('X', 'xs:string')) }))).toBe('404');
    expect((await element('Serial') as aas.Property).value).toBe('S-1');
  });

  it('replaces an element with PUT (204) and patches one through the generated API', async () => {
    const { configuration, generated, wire } = client;
    const power = { ...property('Power', 'xs:float', '7.5'), category: 'PARAMETER' };
    expect(ok(await submodels.putSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Power', submodelElement: elementOf(power) }))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    expect(jsonOf(await element('Motor.Power'))).toEqual(power);

    // The idShort in the body must be the path's.
    const renamed = await submodels.putSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Power', submodelElement: elementOf(property('Other', 'xs:string', 'x')) });
    expect(failureCode(renamed)).toBe('400');
    const absent = await submodels.putSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Nothing', submodelElement: elementOf(property('Nothing', 'xs:string', 'x')) });
    expect(failureCode(absent)).toBe('404');

    // A list item is replaced by index; it has no idShort, and may not get one (AASd-120).
    const item = property(undefined, 'xs:double', '228');
    ok(await submodels.putSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Phases[0]', submodelElement: elementOf(item) }));
    expect(jsonOf(await element('Motor.Phases[0]'))).toEqual(item);
    const named = await submodels.putSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Phases[0]', submodelElement: elementOf(property('Named', 'xs:double', '1')) });
    expect(failureCode(named)).toBe('400');
    expect(jsonOf(await element('Motor.Phases[0]'))).toEqual(item);

    await generated.patchSubmodelElementByPathSubmodelRepo({ submodelIdentifier: b64(id), idShortPath: 'Motor.Power', submodelElement: { modelType: 'Property', idShort: 'Power', valueType: 'xs:float', value: '8' } as never });
    expect(jsonOf(await element('Motor.Power'))).toEqual({ ...power, value: '8' });
  });

  it('reads and writes element values in the value-only form', async () => {
    const { configuration, wire } = client;
    const value = async (idShortPath: string) =>
      ok(await submodels.getSubmodelElementByPathValueOnly({ configuration, submodelIdentifier: id, idShortPath }));
    const patchValue = async (idShortPath: string, submodelElementValue: unknown) =>
      submodels.patchSubmodelElementByPathValueOnly({ configuration, submodelIdentifier: id, idShortPath, submodelElementValue: submodelElementValue as never });

    expect(await value('MaxRpm')).toBe(3000);
    expect(await value('Name')).toEqual([{ en: 'Pump' }, { de: 'Pumpe' }]);
    expect(await value('Temperature')).toEqual({ min: -20, max: 80 });
    expect(await value('Manual')).toEqual({ contentType: 'application/pdf', value: 'manual.pdf' });
    expect(await value('Motor.Phases[0]')).toBe(228); // as replaced by the PUT test above

    expect(ok(await patchValue('MaxRpm', 3600))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    expect(await value('MaxRpm')).toBe(3600);
    expect((await element('MaxRpm') as aas.Property).value).toBe('3600');

    ok(await patchValue('Motor.Phases', [229, 230, 231]));
    expect(await value('Motor.Phases')).toEqual([229, 230, 231]);
    ok(await patchValue('Name', [{ en: 'Big pump' }, { de: 'Große Pumpe' }]));
    expect(jsonOf(await element('Name'))).toEqual({ modelType: 'MultiLanguageProperty', idShort: 'Name', value: [{ language: 'en', text: 'Big pump' }, { language: 'de', text: 'Große Pumpe' }] });

    // A value of the wrong shape is 400 and changes nothing; Operations have no value form (400).
    expect(failureCode(await patchValue('Temperature', 'hot'))).toBe('400');
    expect(await value('Temperature')).toEqual({ min: -20, max: 80 });
    expect(failureCode(await submodels.getSubmodelElementByPathValueOnly({ configuration, submodelIdentifier: id, idShortPath: 'Start' }))).toBe('400');
  });

  it('reads the metadata of an element and of the submodel, without values and children', async () => {
    const { configuration, generated } = client;
    const metadata = ok(await submodels.getSubmodelByIdMetadata({ configuration, submodelIdentifier: id })) as unknown as Json;
    expect(metadata).toEqual({ modelType: 'Submodel', id, idShort: 'TechnicalData', semanticId: globalRef('urn:sem:technical-data') });

    const motor = (await generated.getSubmodelElementByPathMetadataSubmodelRepo({ submodelIdentifier: b64(id), idShortPath: 'Motor' })) as unknown as Json;
    expect(motor).toEqual({ modelType: 'SubmodelElementCollection', idShort: 'Motor' });
    const maxRpm = (await generated.getSubmodelElementByPathMetadataSubmodelRepo({ submodelIdentifier: b64(id), idShortPath: 'MaxRpm' })) as unknown as Json;
    expect(maxRpm).toEqual({ modelType: 'Property', idShort: 'MaxRpm', valueType: 'xs:int' });
  });

  it('reads references and paths through the generated API', async () => {
    const { generated } = client;
    expect(await generated.getSubmodelByIdReference({ submodelIdentifier: b64(id) })).toEqual({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });
    expect(await generated.getSubmodelElementByPathReferenceSubmodelRepo({ submodelIdentifier: b64(id), idShortPath: 'Motor.Phases[1]' })).toEqual({
      type: 'ModelReference',
      keys: [
        { type: 'Submodel', value: id },
        { type: 'SubmodelElementCollection', value: 'Motor' },
        { type: 'SubmodelElementList', value: 'Phases' },
        { type: 'Property', value: '1' },
      ],
    });
    const paths = (await generated.getSubmodelByIdPath({ submodelIdentifier: b64(id) })) as unknown as string[];
    expect(paths).toEqual(expect.arrayContaining(['MaxRpm', 'Motor', 'Motor.Power', 'Motor.Phases', 'Motor.Phases[0]', 'Motor.Phases[1]', 'Start']));
    expect(new Set(paths).size).toBe(paths.length);
    const motorPaths = (await generated.getSubmodelElementByPathPathSubmodelRepo({ submodelIdentifier: b64(id), idShortPath: 'Motor' })) as unknown as string[];
    expect(motorPaths[0]).toBe('Motor');
    expect(motorPaths).toEqual(expect.arrayContaining(['Motor.Power', 'Motor.Phases', 'Motor.Phases[0]']));
    expect(motorPaths.every((p) => p.startsWith('Motor'))).toBe(true);
    expect(await generatedFailure(generated.getSubmodelByIdReference({ submodelIdentifier: b64('urn:e2e:sm:absent') }))).toMatchObject({ status: 404, code: '404' });
  });

  it('reads and writes the whole submodel in the value-only form', async () => {
    const { configuration, wire } = client;
    const value = ok(await submodels.getSubmodelByIdValueOnly({ configuration, submodelIdentifier: id })) as Json;
    // Operations have no value form and are left out; the Blob's value is left out by default.
    expect(Object.keys(value)).not.toContain('Start');
    expect(value.Logo).toEqual({ contentType: 'image/png' });
    expect((value.Motor as Json).Phases).toEqual(expect.any(Array));

    const withBlob = ok(await submodels.getSubmodelByIdValueOnly({ configuration, submodelIdentifier: id, extent: 'withBlobValue' })) as Json;
    expect(withBlob.Logo).toEqual({ contentType: 'image/png', value: LOGO });

    expect(ok(await submodels.patchSubmodelByIdValueOnly({ configuration, submodelIdentifier: id, body: { MaxRpm: 1200, Motor: { Phases: [1, 2, 3] } } }))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    const after = ok(await submodels.getSubmodelByIdValueOnly({ configuration, submodelIdentifier: id })) as Json;
    expect(after.MaxRpm).toBe(1200);
    expect((after.Motor as Json).Phases).toEqual([1, 2, 3]);
    expect(after.Name).toEqual(value.Name);
    expect(failureCode(await submodels.patchSubmodelByIdValueOnly({ configuration, submodelIdentifier: id, body: { MaxRpm: { nested: true } } }))).toBe('400');
  });

  it('deletes elements: by idShort and by list index (the list closes up), 404 afterwards', async () => {
    const { configuration, wire } = client;
    const before = ((await element('Motor.Phases')) as aas.SubmodelElementList).value!.map((e) => (e as aas.Property).value);
    expect(ok(await submodels.deleteSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor.Phases[0]' }))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    expect(((await element('Motor.Phases')) as aas.SubmodelElementList).value!.map((e) => (e as aas.Property).value)).toEqual(before.slice(1));

    ok(await submodels.deleteSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Manual' }));
    expect(await elementFailure('Manual')).toBe('404');
    expect(failureCode(await submodels.deleteSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Manual' }))).toBe('404');
    ok(await submodels.deleteSubmodelElementByPath({ configuration, submodelIdentifier: id, idShortPath: 'Motor' }));
    expect(await elementFailure('Motor.Power')).toBe('404');
    const left = ok(await submodels.getSubmodelById({ configuration, submodelIdentifier: id }));
    expect(left.submodelElements?.map((e) => e.idShort)).toEqual(['MaxRpm', 'Name', 'Temperature', 'Logo', 'Start', 'Serial']);
  });

  it('does not execute operations: 501 on an Operation, 405 on another kind', async () => {
    const { configuration } = client;
    const request = { inputArguments: [], clientTimeoutDuration: 'PT10S' } as never;
    expect(failureCode(await submodels.postInvokeOperationSubmodelRepo({ configuration, submodelIdentifier: id, idShortPath: 'Start', operationRequest: request }))).toBe('501');
    expect(failureCode(await submodels.postInvokeOperationSubmodelRepo({ configuration, submodelIdentifier: id, idShortPath: 'MaxRpm', operationRequest: request }))).toBe('405');
    expect(failureCode(await submodels.postInvokeOperationAsync({ configuration, submodelIdentifier: id, idShortPath: 'Start', operationRequest: request }))).toBe('501');
  });
});

describe('basyx-typescript-sdk ConceptDescriptionRepositoryClient', () => {
  let client: TenantClient;
  const IEC61360 = { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'https://admin-shell.io/DataSpecificationTemplates/DataSpecificationIec61360/3/0' }] };

  const cd = (id: string, idShort: string, extra: Json = {}): Json => ({ modelType: 'ConceptDescription', id, idShort, ...extra });
  const withIec61360 = (name: string): Json => ({
    embeddedDataSpecifications: [
      {
        dataSpecification: IEC61360,
        dataSpecificationContent: {
          modelType: 'DataSpecificationIec61360',
          preferredName: [{ language: 'en', text: name }],
          // AASc-3a-008: a concept description with IEC 61360 content needs an English definition.
          definition: [{ language: 'en', text: `The ${name.toLowerCase()}.` }],
        },
      },
    ],
  });

  beforeAll(async () => {
    client = await tenantClient();
  });

  it('creates, reads, replaces and deletes a concept description', async () => {
    const { configuration, api, wire } = client;
    const id = 'urn:e2e:cd:max-rpm';
    const sent = cd(id, 'MaxRpm', { ...withIec61360('Maximum rotation speed'), isCaseOf: [globalRef('urn:eclass:0173-1#02-BAA120#008')] });
    expect(jsonOf(ok(await cds.postConceptDescription({ configuration, conceptDescription: conceptDescriptionOf(sent) })))).toEqual(sent);
    expect(wire[wire.length - 1].status).toBe(201);
    expect(wire[wire.length - 1].location).toBe(`${api}/concept-descriptions/${b64(id)}`);

    const read = ok(await cds.getConceptDescriptionById({ configuration, cdIdentifier: id }));
    expect(read.idShort).toBe('MaxRpm');
    expect(read.isCaseOf?.[0].keys[0].value).toBe('urn:eclass:0173-1#02-BAA120#008');
    expect(jsonOf(read)).toEqual(sent);

    const replacement = cd(id, 'MaxSpeed', { category: 'PROPERTY' });
    expect(ok(await cds.putConceptDescriptionById({ configuration, cdIdentifier: id, conceptDescription: conceptDescriptionOf(replacement) }))).toBeUndefined();
    expect(wire[wire.length - 1].status).toBe(204);
    expect(jsonOf(ok(await cds.getConceptDescriptionById({ configuration, cdIdentifier: id })))).toEqual(replacement);

    expect(ok(await cds.deleteConceptDescriptionById({ configuration, cdIdentifier: id }))).toBeUndefined();
    expect(failureCode(await cds.getConceptDescriptionById({ configuration, cdIdentifier: id }))).toBe('404');
    expect(failureCode(await cds.deleteConceptDescriptionById({ configuration, cdIdentifier: id }))).toBe('404');
  });

  it('refuses a duplicate (409), an absent replacement (404) and a differing id (400)', async () => {
    const { configuration } = client;
    const id = 'urn:e2e:cd:dup';
    ok(await cds.postConceptDescription({ configuration, conceptDescription: conceptDescriptionOf(cd(id, 'First')) }));
    expect(failureCode(await cds.postConceptDescription({ configuration, conceptDescription: conceptDescriptionOf(cd(id, 'Second')) }))).toBe('409');
    expect(failureCode(await cds.putConceptDescriptionById({ configuration, cdIdentifier: 'urn:e2e:cd:none', conceptDescription: conceptDescriptionOf(cd('urn:e2e:cd:none', 'X')) }))).toBe('404');
    expect(failureCode(await cds.putConceptDescriptionById({ configuration, cdIdentifier: id, conceptDescription: conceptDescriptionOf(cd('urn:e2e:cd:other', 'X')) }))).toBe('400');
    expect(ok(await cds.getConceptDescriptionById({ configuration, cdIdentifier: id })).idShort).toBe('First');
  });

  describe('listing', () => {
    let listing: TenantClient;
    const ids = Array.from({ length: 6 }, (_, n) => `urn:e2e:cd:list:${n}`);
    beforeAll(async () => {
      listing = await tenantClient();
      for (const [n, id] of ids.entries()) {
        const extra: Json = {
          ...(n % 2 === 0 ? withIec61360(`Concept ${n}`) : {}),
          ...(n < 3 ? { isCaseOf: [globalRef('urn:case:a'), globalRef(`urn:case:${n}`)] } : {}),
        };
        ok(await cds.postConceptDescription({ configuration: listing.configuration, conceptDescription: conceptDescriptionOf(cd(id, n < 4 ? 'Speed' : 'Torque', extra)) }));
      }
    });

    async function pageThrough(options: { limit: number; idShort?: string; isCaseOf?: string; dataSpecificationRef?: string }) {
      const pages: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = ok(await cds.getAllConceptDescriptions({ configuration: listing.configuration, ...options, cursor }));
        pages.push(page.result.map((c) => c.id));
        cursor = page.pagedResult?.cursor;
        expect(pages.length).toBeLessThan(20);
      } while (cursor !== undefined);
      return pages;
    }

    it('pages to the end in creation order', async () => {
      expect(await pageThrough({ limit: 4 })).toEqual([ids.slice(0, 4), ids.slice(4)]);
      expect(await pageThrough({ limit: 6 })).toEqual([ids]);
      expect(ok(await cds.getAllConceptDescriptions({ configuration: listing.configuration })).result.map((c) => c.id)).toEqual(ids);
    });

    it('filters by idShort, isCaseOf and dataSpecificationRef, alone and together, across pages', async () => {
      expect(await pageThrough({ limit: 2, idShort: 'Speed' })).toEqual([ids.slice(0, 2), ids.slice(2, 4)]);
      expect(await pageThrough({ limit: 10, idShort: 'Torque' })).toEqual([ids.slice(4)]);
      expect(await pageThrough({ limit: 2, isCaseOf: referenceFilter(globalRef('urn:case:a')) })).toEqual([ids.slice(0, 2), ids.slice(2, 3)]);
      expect(await pageThrough({ limit: 10, isCaseOf: referenceFilter(globalRef('urn:case:1')) })).toEqual([[ids[1]]]);
      expect(await pageThrough({ limit: 10, dataSpecificationRef: referenceFilter(IEC61360) })).toEqual([[ids[0], ids[2], ids[4]]]);
      expect(
        await pageThrough({ limit: 1, idShort: 'Speed', isCaseOf: referenceFilter(globalRef('urn:case:a')), dataSpecificationRef: referenceFilter(IEC61360) }),
      ).toEqual([[ids[0]], [ids[2]]]);
      expect(await pageThrough({ limit: 10, isCaseOf: referenceFilter(globalRef('urn:case:none')) })).toEqual([[]]);
    });

    it('rejects a limit beyond 250 with 400', async () => {
      expect(failureCode(await cds.getAllConceptDescriptions({ configuration: listing.configuration, limit: 251 }))).toBe('400');
    });
  });
});
