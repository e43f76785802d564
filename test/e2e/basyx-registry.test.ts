import { jsonization, stringification, types as aas } from '@aas-core-works/aas-core3.0-typescript';
import type * as Sdk from 'basyx-typescript-sdk';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { validShellDescriptors } from '../support/descriptor-corpus';
import { type Exchange, type Outcome, type Parsed, failureCode, fixture, generatedFailure, ok, recordingConfiguration, sdk } from '../support/basyx-sdk';
import { TestServer, b64, startTestServer } from '../support/server';

/*
 * The Eclipse BaSyx TypeScript SDK (`basyx-typescript-sdk` 1.0.2) against the registries and discovery services,
 * over real HTTP: the implicit ones of a tenant (`{tenant_url}/api/v3.0`, read-only, derived from its shells and
 * submodels) and explicit instances (`{tenant_url}/{instanceName}/api/v3.0`, an AAS registry or a discovery
 * service, each with its own data). What the SDK has (its published `dist/**.d.ts`):
 *
 * - AasRegistryClient: `getAllAssetAdministrationShellDescriptors` (limit, cursor, assetKind, assetType),
 *   `postAssetAdministrationShellDescriptor`, `getAssetAdministrationShellDescriptorById`,
 *   `putAssetAdministrationShellDescriptorById`, `deleteAssetAdministrationShellDescriptorById`, and through the
 *   superpath `getAllSubmodelDescriptorsThroughSuperpath`, `postSubmodelDescriptorThroughSuperpath`,
 *   `getSubmodelDescriptorByIdThroughSuperpath`, `putSubmodelDescriptorByIdThroughSuperpath`,
 *   `deleteSubmodelDescriptorByIdThroughSuperpath`.
 * - SubmodelRegistryClient: `getAllSubmodelDescriptors`, `postSubmodelDescriptor`, `getSubmodelDescriptorById`,
 *   `putSubmodelDescriptorById`, `deleteSubmodelDescriptorById`.
 * - AasDiscoveryClient: `getAllAssetAdministrationShellIdsByAssetLink` (GET /lookup/shells?assetIds=, each asset id
 *   base64url of its JSON, one `assetIds` parameter per id), `getAllAssetLinksById`, `postAllAssetLinksById`,
 *   `deleteAllAssetLinksById`. The V3.1 `POST /lookup/shellsByAssetLink` has no client method; the generated
 *   `AasDiscoveryService.AssetAdministrationShellBasicDiscoveryAPIApi.searchAllAssetAdministrationShellIdsByAssetLink`
 *   has it and is used here as an SDK user would reach it (its GET lookup is marked deprecated there, V3.1's view).
 * - `DescriptionAPIApi.getSelfDescription` of each generated service (GET /description).
 *
 * Loaded through test/support/basyx-sdk.ts (with `require`), results compared as JSON, for the reasons given there. The
 * descriptors are the SDK's own classes (`Models.AssetAdministrationShellDescriptor`, `Models.SubmodelDescriptor`)
 * holding aas-core metamodel objects; `descriptorJson` writes them as Part 2 JSON, so a test compares what it sent
 * with what the SDK handed back, and both with the server's own bytes on the wire.
 *
 * SDK findings (worked around here, not in the server; each is shown by a test below):
 * - The paged results: the SDK reads `pagingMetadata`, the spec's member is `paging_metadata`; the recording
 *   middleware of test/support/basyx-sdk.ts adds the alias (the SDK's extension point), or no client could page.
 * - Descriptor writes send `assetKind` as the metamodel's numeric enum (`"assetKind": 1`, not `"Instance"`):
 *   `toJsonableAssetAdministrationShellDescriptor` copies the field as it is. The server refuses the number (400);
 *   callers put the string in the field (`'Instance' as unknown as AssetKind`). Reading parses it into the enum.
 * - `SubmodelDescriptor.supplementalSemanticIds` (plural) is what the SDK writes and reads; the V3.0.4 schema's
 *   member is `supplementalSemanticId`. A submodel descriptor with supplemental semantic ids written through the
 *   SDK is refused (400: unknown property), and one read through the SDK loses them.
 * - `ProtocolInformationSecurityAttributesTypeEnum` is numeric (`None = 0`), the schema's values are the strings
 *   `NONE`, `RFC_TLSA`, `W3C_DID`: an endpoint built with the SDK's enum is refused (400); the string works, and
 *   reading hands back the string.
 * - Identifiers are trimmed before they are base64url-encoded into the path (`base64Encode` calls `trim()`): a
 *   descriptor whose id begins or ends with a space (valid per the schema) is registered, but the SDK cannot read,
 *   change or delete it: it asks for another id (404).
 * - The SDK's `AssetAdministrationShellDescriptor` JSON writer tests `!== null` only: a field left `undefined`
 *   (a plain object instead of the class) throws inside the SDK, which reports it as a local 500 `Exception`.
 *   The descriptors here are built with the constructors, which default every optional field to null.
 */
const { AasRegistryClient, SubmodelRegistryClient, AasDiscoveryClient, AasDiscoveryService, AasRegistryService, Models } = sdk;

type Json = Record<string, unknown>;
type ShellDescriptor = Sdk.Models.AssetAdministrationShellDescriptor;
type SubmodelDescriptor = Sdk.Models.SubmodelDescriptor;

let server: TestServer;
const registry = new AasRegistryClient();
const submodelRegistry = new SubmodelRegistryClient();
const discovery = new AasDiscoveryClient();

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

/** An SDK configuration for one service base (`.../api/v3.0`), with its own wire log. */
interface Service {
  base: string;
  configuration: Sdk.Configuration;
  wire: Exchange[];
  /** The generated discovery API on this base: `POST /lookup/shellsByAssetLink`, and raw `assetIds`. */
  discoveryApi: Sdk.AasDiscoveryService.AssetAdministrationShellBasicDiscoveryAPIApi;
}

function service(base: string): Service {
  const wire: Exchange[] = [];
  const configuration = recordingConfiguration(base, wire);
  return { base, configuration, wire, discoveryApi: new AasDiscoveryService.AssetAdministrationShellBasicDiscoveryAPIApi(configuration) };
}

const tenantUrl = (tenant: TenantEntity) => `${server.url}/tenants/${tenant.name}`;

/** An explicit instance of `tenant`, created as an operator would, and an SDK configuration at its base. */
async function instance(tenant: TenantEntity, name: string, kind: 'discovery' | 'aas-registry'): Promise<Service> {
  await server.services.registryInstances.create(tenant, { name, kind });
  return service(`${tenantUrl(tenant)}/${name}/api/v3.0`);
}

/** An explicit instance of a fresh tenant, as `instance` makes it, and that tenant. */
async function instanceOfNewTenant(name: string, kind: 'discovery' | 'aas-registry'): Promise<Service & { tenant: TenantEntity }> {
  const tenant = await server.createTenant();
  return { ...(await instance(tenant, name, kind)), tenant };
}

/** The HTTP status code of a failed SDK call, as the server's Result says it. */
const failureStatus = (outcome: Outcome<unknown>): number => Number(failureCode(outcome));

const expect4xx = (code: number) => expect(code >= 400 && code < 500, `status ${code}`).toBe(true);

// --- Part 2 JSON <-> the SDK's descriptor classes

const list = <T>(json: unknown, parse: (item: jsonization.JsonValue) => Parsed<T>): T[] | null => (Array.isArray(json) ? json.map((item) => fixture(parse, item)) : null);

const one = <T>(json: unknown, parse: (item: jsonization.JsonValue) => Parsed<T>): T | null => (json === undefined ? null : fixture(parse, json));

function sdkEndpoint(json: Json): Sdk.Models.Endpoint {
  const info = json.protocolInformation as Json;
  return {
    _interface: json.interface as string,
    protocolInformation: {
      href: info.href as string,
      endpointProtocol: (info.endpointProtocol as string | undefined) ?? null,
      endpointProtocolVersion: (info.endpointProtocolVersion as string[] | undefined) ?? null,
      subprotocol: (info.subprotocol as string | undefined) ?? null,
      subprotocolBody: (info.subprotocolBody as string | undefined) ?? null,
      subprotocolBodyEncoding: (info.subprotocolBodyEncoding as string | undefined) ?? null,
      // The schema's strings (`NONE`, ...), not the SDK's numeric enum: see the header.
      securityAttributes: (info.securityAttributes as Sdk.Models.ProtocolInformationSecurityAttributes[] | undefined) ?? null,
    },
  };
}

/** A Part 2 submodel descriptor as the SDK's class (`supplementalSemanticId` goes to the SDK's plural field). */
function sdkSubmodelDescriptor(json: Json): SubmodelDescriptor {
  return new Models.SubmodelDescriptor(
    json.id as string,
    (json.endpoints as Json[]).map(sdkEndpoint),
    one(json.administration, jsonization.administrativeInformationFromJsonable),
    (json.idShort as string | undefined) ?? null,
    one(json.semanticId, jsonization.referenceFromJsonable),
    list(json.supplementalSemanticId, jsonization.referenceFromJsonable),
    list(json.displayName, jsonization.langStringNameTypeFromJsonable),
    list(json.description, jsonization.langStringTextTypeFromJsonable),
    list(json.extensions, jsonization.extensionFromJsonable),
  );
}

/**
 * A Part 2 shell descriptor as the SDK's class. `assetKind` stays the schema's string (the SDK would send the
 * enum's number: see the header) unless `numericAssetKind`.
 */
function sdkShellDescriptor(json: Json, numericAssetKind = false): ShellDescriptor {
  const kind = json.assetKind as string | undefined;
  const assetKind = kind === undefined ? null : numericAssetKind ? stringification.assetKindFromString(kind) : (kind as unknown as aas.AssetKind);
  return new Models.AssetAdministrationShellDescriptor(
    json.id as string,
    list(json.displayName, jsonization.langStringNameTypeFromJsonable),
    list(json.description, jsonization.langStringTextTypeFromJsonable),
    list(json.extensions, jsonization.extensionFromJsonable),
    one(json.administration, jsonization.administrativeInformationFromJsonable),
    (json.idShort as string | undefined) ?? null,
    assetKind,
    (json.assetType as string | undefined) ?? null,
    (json.globalAssetId as string | undefined) ?? null,
    list(json.specificAssetIds, jsonization.specificAssetIdFromJsonable),
    Array.isArray(json.submodelDescriptors) ? (json.submodelDescriptors as Json[]).map(sdkSubmodelDescriptor) : null,
    Array.isArray(json.endpoints) ? (json.endpoints as Json[]).map(sdkEndpoint) : null,
  );
}

/** An object without its null and undefined members. */
function present(json: Json): Json {
  return Object.fromEntries(Object.entries(json).filter(([, value]) => value !== null && value !== undefined));
}

const metamodel = (instance: aas.Class) => jsonization.toJsonable(instance);
const metamodels = (instances: aas.Class[] | null) => instances?.map(metamodel);

function endpointJson(endpoint: Sdk.Models.Endpoint): Json {
  return { interface: endpoint._interface, protocolInformation: present({ ...endpoint.protocolInformation }) };
}

/** The members both kinds of SDK descriptor have, as Part 2 JSON (null where absent). */
function descriptorHeadJson(d: ShellDescriptor | SubmodelDescriptor): Json {
  return {
    description: metamodels(d.description),
    displayName: metamodels(d.displayName),
    extensions: metamodels(d.extensions),
    administration: d.administration && metamodel(d.administration),
    idShort: d.idShort,
    id: d.id,
  };
}

/** An SDK submodel descriptor as Part 2 JSON (the SDK's `supplementalSemanticIds` under the schema's name). */
function submodelDescriptorJson(d: SubmodelDescriptor): Json {
  return present({
    ...descriptorHeadJson(d),
    semanticId: d.semanticId && metamodel(d.semanticId),
    supplementalSemanticId: metamodels(d.supplementalSemanticIds),
    endpoints: d.endpoints.map(endpointJson),
  });
}

/** An SDK shell descriptor as Part 2 JSON; `assetKind` the schema's string whether it holds the enum or the string. */
function shellDescriptorJson(d: ShellDescriptor): Json {
  const kind = d.assetKind as unknown;
  return present({
    ...descriptorHeadJson(d),
    assetKind: typeof kind === 'number' ? stringification.mustAssetKindToString(kind) : kind,
    assetType: d.assetType,
    globalAssetId: d.globalAssetId,
    specificAssetIds: metamodels(d.specificAssetIds),
    submodelDescriptors: d.submodelDescriptors?.map(submodelDescriptorJson),
    endpoints: d.endpoints?.map(endpointJson),
  });
}

const specificAssetId = (name: string, value: string) => new aas.SpecificAssetId(name, value);
const assetLinksJson = (links: aas.SpecificAssetId[]) => links.map(metamodel);

/** The last exchange's body, the server's own JSON. */
const lastBody = (s: Service) => s.wire.at(-1)!.body;

// --- Fixtures: shells and submodels for the implicit services

const globalRef = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'GlobalReference', value }] });
const submodelRef = (id: string) => ({ type: 'ModelReference', keys: [{ type: 'Submodel', value: id }] });

async function rest(method: string, url: string, body?: unknown): Promise<Response> {
  const res = await fetch(url, { method, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return res;
}

async function seed(api: string, path: string, json: Json): Promise<void> {
  const res = await rest('POST', `${api}/${path}`, json);
  if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
}

/**
 * The implicit descriptor of a seeded shell, as the contract derives it: the shell's descriptive parts and asset
 * information, an `AAS-3.0` endpoint at the tenant's repository, and the descriptors of the submodels it references
 * that the tenant stores (endpoints `SUBMODEL-3.0`). Endpoints are checked by interface and href (`endpointsAt`).
 */
function implicitDescriptor(shell: Json, submodels: Json[]): Json {
  const info = shell.assetInformation as Json;
  const referenced = ((shell.submodels as { keys: { value: string }[] }[] | undefined) ?? []).map((ref) => ref.keys[0].value);
  const stored = referenced.flatMap((id) => submodels.filter((sm) => sm.id === id));
  return present({
    description: shell.description,
    displayName: shell.displayName,
    administration: shell.administration,
    idShort: shell.idShort,
    id: shell.id,
    assetKind: info.assetKind,
    assetType: info.assetType,
    globalAssetId: info.globalAssetId,
    specificAssetIds: info.specificAssetIds,
    submodelDescriptors: stored.length ? stored.map(implicitSubmodelDescriptor) : undefined,
  });
}

function implicitSubmodelDescriptor(submodel: Json): Json {
  return present({
    description: submodel.description,
    displayName: submodel.displayName,
    administration: submodel.administration,
    idShort: submodel.idShort,
    id: submodel.id,
    semanticId: submodel.semanticId,
  });
}

/** A descriptor's JSON without its endpoints (nested too), and the endpoints' interface and href, by descriptor id. */
function splitEndpoints(json: Json): { rest: Json; endpoints: Record<string, [string, string][]> } {
  const endpoints: Record<string, [string, string][]> = {};
  const strip = (d: Json): Json => {
    const { endpoints: own, submodelDescriptors, ...rest } = d;
    endpoints[d.id as string] = ((own as Json[] | undefined) ?? []).map((e) => [e.interface as string, (e.protocolInformation as Json).href as string]);
    return present({ ...rest, submodelDescriptors: (submodelDescriptors as Json[] | undefined)?.map(strip) });
  };
  return { rest: strip(json), endpoints };
}

describe('implicit services of a tenant (read-only, derived from its shells and submodels)', () => {
  let tenant: TenantEntity;
  let api: string;
  let implicit: Service;

  const nameplate: Json = {
    modelType: 'Submodel',
    id: 'urn:e2e:sm:nameplate:1',
    idShort: 'Nameplate',
    semanticId: globalRef('https://admin-shell.io/zvei/nameplate/2/0/Nameplate'),
    description: [{ language: 'en', text: 'Nameplate of pump 1' }],
    submodelElements: [{ modelType: 'Property', idShort: 'ManufacturerName', valueType: 'xs:string', value: 'ACME' }],
  };
  const technicalData: Json = {
    modelType: 'Submodel',
    id: 'https://example.com/sm/Technische Daten/€/1',
    idShort: 'TechnicalData',
    administration: { version: '1', revision: '2' },
    displayName: [{ language: 'de', text: 'Technische Daten' }],
  };
  const unreferenced: Json = { modelType: 'Submodel', id: 'urn:e2e:sm:unreferenced', idShort: 'Loose' };
  const submodels = [nameplate, technicalData, unreferenced];

  const pump1: Json = {
    modelType: 'AssetAdministrationShell',
    id: 'https://example.com/aas/Pümpe/1?x=1+2#frag/𝄞',
    idShort: 'Pump1',
    description: [{ language: 'en', text: 'A pump' }, { language: 'de', text: 'Eine Pumpe' }],
    displayName: [{ language: 'en', text: 'Pump 1' }],
    administration: { version: '3', revision: '0' },
    assetInformation: {
      assetKind: 'Instance',
      globalAssetId: 'urn:e2e:asset:pump1',
      assetType: 'urn:e2e:type:pump',
      specificAssetIds: [
        { name: 'serialNumber', value: 'S-100', externalSubjectId: globalRef('urn:e2e:customer') },
        { name: 'manufacturer', value: 'ACME' },
      ],
    },
    // The third submodel is not stored in this tenant: it has no descriptor.
    submodels: [submodelRef(nameplate.id as string), submodelRef(technicalData.id as string), submodelRef('urn:e2e:sm:elsewhere')],
  };
  const pump2: Json = {
    modelType: 'AssetAdministrationShell',
    id: 'urn:e2e:aas:pump2',
    idShort: 'Pump2',
    assetInformation: {
      assetKind: 'Instance',
      globalAssetId: 'urn:e2e:asset:pump2',
      specificAssetIds: [
        { name: 'serialNumber', value: 'S-200' },
        { name: 'manufacturer', value: 'ACME' },
      ],
    },
  };
  const pumpType: Json = {
    modelType: 'AssetAdministrationShell',
    id: 'urn:e2e:aas:pump-type',
    idShort: 'PumpType',
    assetInformation: { assetKind: 'Type', globalAssetId: 'urn:e2e:asset:pump-type' },
    submodels: [submodelRef(nameplate.id as string)],
  };
  const shells = [pump1, pump2, pumpType];

  beforeAll(async () => {
    tenant = await server.createTenant();
    api = server.api(tenant.name);
    implicit = service(api);
    for (const submodel of submodels) await seed(api, 'submodels', submodel);
    for (const shell of shells) await seed(api, 'shells', shell);
  });

  /** Checks a descriptor from the SDK: as JSON it is the server's body and the contract's derivation of the shell. */
  function expectImplicitShellDescriptor(got: ShellDescriptor, wireBody: unknown, shell: Json): void {
    expect(shellDescriptorJson(got)).toEqual(wireBody);
    const { rest, endpoints } = splitEndpoints(wireBody as Json);
    expect(rest).toEqual(implicitDescriptor(shell, submodels));
    expect(endpoints[shell.id as string]).toEqual([['AAS-3.0', `${api}/shells/${b64(shell.id as string)}`]]);
    for (const sm of (rest.submodelDescriptors as Json[] | undefined) ?? []) {
      expect(endpoints[sm.id as string]).toEqual([['SUBMODEL-3.0', `${api}/submodels/${b64(sm.id as string)}`]]);
    }
  }

  it('lists the shell descriptors of all shells, in order, paged and filtered', async () => {
    const { configuration } = implicit;
    const all = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration }));
    expect(implicit.wire.at(-1)).toMatchObject({ method: 'GET', url: `${api}/shell-descriptors`, status: 200 });
    const body = lastBody(implicit) as { result: Json[] };
    expect(all.result.map((d) => d.id)).toEqual(shells.map((s) => s.id));
    all.result.forEach((d, i) => expectImplicitShellDescriptor(d, body.result[i], shells[i]));
    expect(all.result[0].submodelDescriptors?.map((sm) => sm.id)).toEqual([nameplate.id, technicalData.id]);
    expect(all.result[1].submodelDescriptors).toBeNull();

    // Pages of two, with the cursor the client hands back.
    const first = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, limit: 2 }));
    expect(first.result.map((d) => d.id)).toEqual([pump1.id, pump2.id]);
    expect(first.pagedResult?.cursor).toBeTruthy();
    const second = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, limit: 2, cursor: first.pagedResult!.cursor }));
    expect(second.result.map((d) => d.id)).toEqual([pumpType.id]);
    expect(second.pagedResult?.cursor).toBeFalsy();

    // Filters: assetKind (the generated API's string enum), assetType (the SDK base64url-encodes it).
    const types = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, assetKind: 'Type' }));
    expect(types.result.map((d) => d.id)).toEqual([pumpType.id]);
    const ofType = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, assetType: 'urn:e2e:type:pump' }));
    expect(implicit.wire.at(-1)?.url).toBe(`${api}/shell-descriptors?assetType=${b64('urn:e2e:type:pump')}`);
    expect(ofType.result.map((d) => d.id)).toEqual([pump1.id]);
  });

  it('reads one shell descriptor, and the submodel descriptors under it', async () => {
    const { configuration } = implicit;
    const got = ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: pump1.id as string }));
    expect(implicit.wire.at(-1)).toMatchObject({ url: `${api}/shell-descriptors/${b64(pump1.id as string)}`, status: 200 });
    expectImplicitShellDescriptor(got, lastBody(implicit), pump1);

    const under = ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier: pump1.id as string }));
    expect(under.result.map(submodelDescriptorJson)).toEqual((lastBody(implicit) as { result: Json[] }).result);
    expect(under.result.map((sm) => sm.id)).toEqual([nameplate.id, technicalData.id]);
    expect(under.result.map(submodelDescriptorJson)).toEqual((shellDescriptorJson(got).submodelDescriptors as Json[]));
    const paged = ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier: pump1.id as string, limit: 1 }));
    expect(paged.result.map((sm) => sm.id)).toEqual([nameplate.id]);
    const rest = ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier: pump1.id as string, limit: 1, cursor: paged.pagedResult!.cursor }));
    expect(rest.result.map((sm) => sm.id)).toEqual([technicalData.id]);

    const tech = ok(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier: pump1.id as string, submodelIdentifier: technicalData.id as string }));
    expect(submodelDescriptorJson(tech)).toEqual(lastBody(implicit));
    expect(splitEndpoints(lastBody(implicit) as Json).rest).toEqual(implicitSubmodelDescriptor(technicalData));

    // Absent: a shell, a submodel the shell references but the tenant does not store, one it does not reference.
    expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: 'urn:e2e:absent' }))).toBe(404);
    expect(failureStatus(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier: pump1.id as string, submodelIdentifier: 'urn:e2e:sm:elsewhere' }))).toBe(404);
    expect(failureStatus(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier: pump2.id as string, submodelIdentifier: nameplate.id as string }))).toBe(404);
    expect(failureStatus(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier: 'urn:e2e:absent' }))).toBe(404);
  });

  it('serves the submodel registry from the stored submodels', async () => {
    const { configuration } = implicit;
    const all = ok(await submodelRegistry.getAllSubmodelDescriptors({ configuration }));
    expect(implicit.wire.at(-1)).toMatchObject({ url: `${api}/submodel-descriptors`, status: 200 });
    expect(all.result.map(submodelDescriptorJson)).toEqual((lastBody(implicit) as { result: Json[] }).result);
    expect(all.result.map((d) => d.id)).toEqual(submodels.map((sm) => sm.id));
    const page = ok(await submodelRegistry.getAllSubmodelDescriptors({ configuration, limit: 2 }));
    expect(page.result.map((d) => d.id)).toEqual([nameplate.id, technicalData.id]);
    const next = ok(await submodelRegistry.getAllSubmodelDescriptors({ configuration, limit: 2, cursor: page.pagedResult!.cursor }));
    expect(next.result.map((d) => d.id)).toEqual([unreferenced.id]);

    for (const submodel of submodels) {
      const got = ok(await submodelRegistry.getSubmodelDescriptorById({ configuration, submodelIdentifier: submodel.id as string }));
      expect(implicit.wire.at(-1)?.url).toBe(`${api}/submodel-descriptors/${b64(submodel.id as string)}`);
      expect(submodelDescriptorJson(got)).toEqual(lastBody(implicit));
      const { rest, endpoints } = splitEndpoints(lastBody(implicit) as Json);
      expect(rest).toEqual(implicitSubmodelDescriptor(submodel));
      expect(endpoints[submodel.id as string]).toEqual([['SUBMODEL-3.0', `${api}/submodels/${b64(submodel.id as string)}`]]);
    }
    expect(failureStatus(await submodelRegistry.getSubmodelDescriptorById({ configuration, submodelIdentifier: 'urn:e2e:absent' }))).toBe(404);
  });

  it('discovers shells by asset ids: GET /lookup/shells, POST /lookup/shellsByAssetLink, the links of a shell', async () => {
    const { configuration, discoveryApi } = implicit;
    const lookup = async (assetIds: Sdk.Models.AssetId[], more: { limit?: number; cursor?: string } = {}) =>
      ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration, assetIds, ...more }));

    expect((await lookup([{ name: 'serialNumber', value: 'S-100' }])).result).toEqual([pump1.id]);
    // One `assetIds` parameter per asset id, each the base64url of its JSON.
    const pair = { name: 'manufacturer', value: 'ACME' };
    expect(implicit.wire.at(-1)?.url).toBe(`${api}/lookup/shells?assetIds=${b64(JSON.stringify({ name: 'serialNumber', value: 'S-100' }))}`);
    expect((await lookup([pair])).result).toEqual([pump1.id, pump2.id]);
    // Several asset ids: the shells linked to all of them.
    expect((await lookup([pair, { name: 'serialNumber', value: 'S-200' }])).result).toEqual([pump2.id]);
    expect(implicit.wire.at(-1)?.url).toBe(`${api}/lookup/shells?assetIds=${b64(JSON.stringify(pair))}&assetIds=${b64(JSON.stringify({ name: 'serialNumber', value: 'S-200' }))}`);
    // The global asset id under the name `globalAssetId` (AASd-116).
    expect((await lookup([{ name: 'globalAssetId', value: 'urn:e2e:asset:pump-type' }])).result).toEqual([pumpType.id]);
    expect((await lookup([{ name: 'serialNumber', value: 'S-999' }])).result).toEqual([]);
    expect((await lookup([{ name: 'S-100', value: 'serialNumber' }])).result).toEqual([]);
    // Paged, with the cursor the client hands back.
    const first = await lookup([pair], { limit: 1 });
    expect(first.result).toEqual([pump1.id]);
    const second = await lookup([pair], { limit: 1, cursor: first.pagedResult!.cursor });
    expect(second.result).toEqual([pump2.id]);
    expect(second.pagedResult?.cursor).toBeFalsy();

    // POST /lookup/shellsByAssetLink (V3.1): the SDK's generated API only.
    const searched = await discoveryApi.searchAllAssetAdministrationShellIdsByAssetLink({ assetLink: [pair] });
    expect(implicit.wire.at(-1)).toMatchObject({ method: 'POST', url: `${api}/lookup/shellsByAssetLink`, status: 200 });
    expect(searched.result).toEqual([pump1.id, pump2.id]);
    const searchedPage = await discoveryApi.searchAllAssetAdministrationShellIdsByAssetLink({ assetLink: [pair], limit: 1 });
    expect(searchedPage.result).toEqual([pump1.id]);
    expect(implicit.wire.at(-1)?.url).toBe(`${api}/lookup/shellsByAssetLink?limit=1`);

    // The links of a shell: its global asset id as `globalAssetId`, then its specific asset ids, as stored.
    const links = ok(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: pump1.id as string }));
    expect(implicit.wire.at(-1)).toMatchObject({ url: `${api}/lookup/shells/${b64(pump1.id as string)}`, status: 200 });
    const info = pump1.assetInformation as Json;
    expect(assetLinksJson(links)).toEqual([{ name: 'globalAssetId', value: info.globalAssetId }, ...(info.specificAssetIds as Json[])]);
    expect(assetLinksJson(links)).toEqual(lastBody(implicit));
    expect(assetLinksJson(ok(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: pumpType.id as string })))).toEqual([
      { name: 'globalAssetId', value: 'urn:e2e:asset:pump-type' },
    ]);
    expect(failureStatus(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: 'urn:e2e:absent' }))).toBe(404);

    // A bare value instead of a base64url-encoded SpecificAssetId: 400, never 500 (the generated API sends it as given).
    expect((await generatedFailure(discoveryApi.getAllAssetAdministrationShellIdsByAssetLink({ assetIds: ['S-100'] }))).status).toBe(400);
    expect((await generatedFailure(discoveryApi.getAllAssetAdministrationShellIdsByAssetLink({ assetIds: [b64('S-100')] }))).status).toBe(400);
  });

  it('refuses every write through the SDK (405; a PUT that would change a derived descriptor 409), and changes nothing', async () => {
    const { configuration, discoveryApi } = implicit;
    const lastBodyText = () => JSON.stringify(lastBody(implicit));
    ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration }));
    const descriptorsBefore = lastBodyText();
    ok(await submodelRegistry.getAllSubmodelDescriptors({ configuration }));
    const submodelDescriptorsBefore = lastBodyText();

    const newShell = sdkShellDescriptor({ id: 'urn:e2e:implicit:new', endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: 'https://example.com/aas' } }] });
    const existing = sdkShellDescriptor(implicitDescriptor(pump2, submodels));
    existing.idShort = 'Renamed';
    const newSubmodel = sdkSubmodelDescriptor({ id: 'urn:e2e:implicit:sm', endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://example.com/sm' } }] });
    const pump1Id = pump1.id as string;
    const attempts: [string, () => Promise<Outcome<unknown>>][] = [
      ['POST /shell-descriptors', () => registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: newShell })],
      ['PUT /shell-descriptors/{id}', () => registry.putAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: pump2.id as string, assetAdministrationShellDescriptor: existing })],
      ['DELETE /shell-descriptors/{id}', () => registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: pump2.id as string })],
      ['POST .../submodel-descriptors', () => registry.postSubmodelDescriptorThroughSuperpath({ configuration, aasIdentifier: pump1Id, submodelDescriptor: newSubmodel })],
      ['PUT .../submodel-descriptors/{id}', () => registry.putSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier: pump1Id, submodelIdentifier: nameplate.id as string, submodelDescriptor: sdkSubmodelDescriptor({ ...implicitSubmodelDescriptor(nameplate), endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://example.com/sm' } }] }) })],
      ['DELETE .../submodel-descriptors/{id}', () => registry.deleteSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier: pump1Id, submodelIdentifier: nameplate.id as string })],
      ['POST /submodel-descriptors', () => submodelRegistry.postSubmodelDescriptor({ configuration, submodelDescriptor: newSubmodel })],
      ['PUT /submodel-descriptors/{id}', () => submodelRegistry.putSubmodelDescriptorById({ configuration, submodelIdentifier: unreferenced.id as string, submodelDescriptor: sdkSubmodelDescriptor({ id: unreferenced.id, endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: 'https://example.com/sm' } }] }) })],
      ['DELETE /submodel-descriptors/{id}', () => submodelRegistry.deleteSubmodelDescriptorById({ configuration, submodelIdentifier: unreferenced.id as string })],
      ['POST /lookup/shells/{id}', () => discovery.postAllAssetLinksById({ configuration, aasIdentifier: pump2.id as string, specificAssetId: [specificAssetId('rfid', 'R-1')] })],
      ['DELETE /lookup/shells/{id}', () => discovery.deleteAllAssetLinksById({ configuration, aasIdentifier: pump1Id })],
    ];
    // 405: the paths exist, read-only (the Result says where to write). A PUT of a descriptor that differs from the
    // one derived is 409 (one equal to it changes nothing: 204, see basyx-ui-requests.test.ts).
    for (const [label, attempt] of attempts) {
      const outcome = await attempt();
      const status = label.startsWith('PUT ') ? 409 : 405;
      expect(outcome.success, label).toBe(false);
      expect(failureStatus(outcome), label).toBe(status);
      expect(implicit.wire.at(-1)!.status, label).toBe(status);
    }

    ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration }));
    expect(lastBodyText()).toBe(descriptorsBefore);
    ok(await submodelRegistry.getAllSubmodelDescriptors({ configuration }));
    expect(lastBodyText()).toBe(submodelDescriptorsBefore);
    expect((await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration, assetIds: [{ name: 'rfid', value: 'R-1' }] })).success).toBe(true);
    expect(lastBody(implicit)).toMatchObject({ result: [] });
    expect(await discoveryApi.getAllAssetLinksById({ aasIdentifier: b64(pump1Id) })).toHaveLength(3);
  });

  it('reflects a shell change in the very next SDK call', async () => {
    const { configuration } = implicit;
    const id = 'urn:e2e:aas:changing';
    const shell: Json = { modelType: 'AssetAdministrationShell', id, idShort: 'Changing', assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:e2e:asset:changing' } };
    const rfid = { name: 'rfid', value: 'RFID-4711' };
    const lookupRfid = async () => ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration, assetIds: [rfid] })).result;

    await seed(api, 'shells', shell);
    expect(await lookupRfid()).toEqual([]);
    expect(ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id })).specificAssetIds).toBeNull();

    // Add a specific asset id through the repository: the lookup, the links and the descriptor show it at once.
    const changed = { ...shell, assetInformation: { ...(shell.assetInformation as Json), specificAssetIds: [rfid] } };
    expect((await rest('PUT', `${api}/shells/${b64(id)}`, changed)).status).toBe(204);
    expect(await lookupRfid()).toEqual([id]);
    expect(assetLinksJson(ok(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: id })))).toEqual([{ name: 'globalAssetId', value: 'urn:e2e:asset:changing' }, rfid]);
    const descriptor = ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }));
    expect(assetLinksJson(descriptor.specificAssetIds!)).toEqual([rfid]);
    const filtered = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, assetKind: 'Instance' }));
    expect(filtered.result.find((d) => d.id === id)?.specificAssetIds?.map((s) => s.value)).toEqual([rfid.value]);

    // Change the global asset id, then delete the shell: each shows in the next call.
    const moved = { ...changed, assetInformation: { ...(changed.assetInformation as Json), globalAssetId: 'urn:e2e:asset:moved' } };
    expect((await rest('PUT', `${api}/shells/${b64(id)}`, moved)).status).toBe(204);
    const byGlobal = async (value: string) => ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration, assetIds: [{ name: 'globalAssetId', value }] })).result;
    expect(await byGlobal('urn:e2e:asset:changing')).toEqual([]);
    expect(await byGlobal('urn:e2e:asset:moved')).toEqual([id]);
    expect((await rest('DELETE', `${api}/shells/${b64(id)}`)).status).toBe(204);
    expect(await lookupRfid()).toEqual([]);
    expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }))).toBe(404);
    expect(failureStatus(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: id }))).toBe(404);
  });
});

/** A complete descriptor of our own: every field the SDK can carry, and a submodel descriptor. */
function fullShellDescriptor(id: string, idShort = 'Pump'): Json {
  return {
    description: [{ language: 'en', text: 'A registered pump' }],
    displayName: [{ language: 'en', text: 'Pump' }, { language: 'de', text: 'Pumpe' }],
    extensions: [{ name: 'origin', valueType: 'xs:string', value: 'e2e' }],
    administration: { version: '2', revision: '1' },
    idShort,
    id,
    assetKind: 'Instance',
    assetType: 'urn:e2e:type:pump',
    globalAssetId: `${id}#asset`,
    specificAssetIds: [{ name: 'serialNumber', value: `SN-${idShort}`, externalSubjectId: globalRef('urn:e2e:customer') }],
    submodelDescriptors: [submodelDescriptorFixture(`${id}/sm/nameplate`)],
    endpoints: [
      {
        interface: 'AAS-3.0',
        protocolInformation: {
          href: `https://aas.example.com/api/v3.0/shells/${b64(id)}`,
          endpointProtocol: 'HTTP',
          endpointProtocolVersion: ['1.1'],
          securityAttributes: [{ type: 'NONE', key: 'NONE', value: 'NONE' }],
        },
      },
    ],
  };
}

function submodelDescriptorFixture(id: string, idShort = 'Nameplate'): Json {
  return {
    idShort,
    id,
    semanticId: globalRef('https://admin-shell.io/zvei/nameplate/2/0/Nameplate'),
    description: [{ language: 'en', text: `${idShort} of the pump` }],
    endpoints: [{ interface: 'SUBMODEL-3.0', protocolInformation: { href: `https://aas.example.com/api/v3.0/submodels/${b64(id)}`, endpointProtocol: 'HTTP' } }],
  };
}

/** Without `supplementalSemanticId` anywhere: the SDK cannot carry it (see the header). */
function withoutSupplemental(json: Json): Json {
  const { supplementalSemanticId: _dropped, ...rest } = json;
  if (Array.isArray(rest.submodelDescriptors)) rest.submodelDescriptors = (rest.submodelDescriptors as Json[]).map(withoutSupplemental);
  return rest;
}

describe('an explicit AAS registry instance: full CRUD through the SDK', () => {
  let reg: Service & { tenant: TenantEntity };
  beforeAll(async () => {
    reg = await instanceOfNewTenant('registry-a', 'aas-registry');
  });

  it('creates, reads, replaces and deletes a shell descriptor', async () => {
    const { configuration, base } = reg;
    const id = 'https://example.com/aas/Pümpe?x=1+2&y=#frag/€/𝄞';
    const sent = fullShellDescriptor(id);
    const created = ok(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(sent) }));
    expect(reg.wire.at(-1)).toMatchObject({ method: 'POST', url: `${base}/shell-descriptors`, status: 201 });
    expect(shellDescriptorJson(created)).toEqual(sent);
    expect(lastBody(reg)).toEqual(sent);

    const got = ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }));
    expect(reg.wire.at(-1)).toMatchObject({ method: 'GET', url: `${base}/shell-descriptors/${b64(id)}`, status: 200 });
    expect(shellDescriptorJson(got)).toEqual(sent);
    expect(got.assetKind).toBe(aas.AssetKind.Instance); // read into the metamodel's enum
    expect(lastBody(reg)).toEqual(sent);
    expect(ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration })).result.map(shellDescriptorJson)).toEqual([sent]);

    // Replace: other fields, no submodel descriptors. 204, the SDK has nothing to convert.
    const replacement: Json = { ...fullShellDescriptor(id, 'PumpRenamed'), assetKind: 'Type', submodelDescriptors: undefined, specificAssetIds: [{ name: 'rfid', value: 'R-1' }] };
    delete replacement.submodelDescriptors;
    const replaced = await registry.putAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id, assetAdministrationShellDescriptor: sdkShellDescriptor(replacement) });
    expect(ok(replaced)).toBeUndefined();
    expect(reg.wire.at(-1)).toMatchObject({ method: 'PUT', url: `${base}/shell-descriptors/${b64(id)}`, status: 204 });
    const reread = ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }));
    expect(shellDescriptorJson(reread)).toEqual(replacement);
    expect(reread.submodelDescriptors).toBeNull();

    // Delete; then it is gone: 404 for a read, a replacement and a second delete.
    expect(ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }))).toBeUndefined();
    expect(reg.wire.at(-1)).toMatchObject({ method: 'DELETE', url: `${base}/shell-descriptors/${b64(id)}`, status: 204 });
    expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }))).toBe(404);
    expect(failureStatus(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }))).toBe(404);
    expect(ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration })).result).toEqual([]);
  });

  it('round-trips the generated valid descriptors of the Part 2 schema unchanged', async () => {
    const { configuration } = reg;
    const cases = validShellDescriptors(11, 12).map((c) => ({ label: c.label, doc: withoutSupplemental(c.doc as Json) }));
    for (const { label, doc } of cases) {
      const created = await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(doc) });
      expect(created.success, `${label}: ${JSON.stringify(created.success ? '' : created.error)}`).toBe(true);
      expect(shellDescriptorJson(ok(created)), label).toEqual(doc);
      const got = ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: doc.id as string }));
      expect(shellDescriptorJson(got), label).toEqual(doc);
      expect(lastBody(reg), label).toEqual(doc);
    }
    for (const { doc } of cases) ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: doc.id as string }));
  });

  it('creates, reads, replaces and deletes submodel descriptors under a shell descriptor', async () => {
    const { configuration, base } = reg;
    const aasIdentifier = 'urn:e2e:registry:with-submodels';
    const shell = { ...fullShellDescriptor(aasIdentifier) };
    delete shell.submodelDescriptors;
    ok(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(shell) }));
    expect(ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier })).result).toEqual([]);

    const smIds = ['urn:e2e:sm:a', 'https://example.com/sm/b/€', 'urn:e2e:sm:c'];
    for (const smId of smIds) {
      const sent = submodelDescriptorFixture(smId, `Sm${smIds.indexOf(smId)}`);
      const created = ok(await registry.postSubmodelDescriptorThroughSuperpath({ configuration, aasIdentifier, submodelDescriptor: sdkSubmodelDescriptor(sent) }));
      expect(reg.wire.at(-1)).toMatchObject({ method: 'POST', url: `${base}/shell-descriptors/${b64(aasIdentifier)}/submodel-descriptors`, status: 201 });
      expect(submodelDescriptorJson(created)).toEqual(sent);
      expect(lastBody(reg)).toEqual(sent);
    }
    const all = ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier }));
    expect(all.result.map((sm) => sm.id)).toEqual(smIds);
    const page = ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier, limit: 2 }));
    expect(page.result.map((sm) => sm.id)).toEqual(smIds.slice(0, 2));
    const next = ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier, limit: 2, cursor: page.pagedResult!.cursor }));
    expect(next.result.map((sm) => sm.id)).toEqual(smIds.slice(2));
    // The shell descriptor holds them too.
    const withThem = ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier }));
    expect(withThem.submodelDescriptors?.map(submodelDescriptorJson)).toEqual(all.result.map(submodelDescriptorJson));

    const got = ok(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[1] }));
    expect(reg.wire.at(-1)?.url).toBe(`${base}/shell-descriptors/${b64(aasIdentifier)}/submodel-descriptors/${b64(smIds[1])}`);
    expect(submodelDescriptorJson(got)).toEqual(submodelDescriptorFixture(smIds[1], 'Sm1'));

    const replacement = { ...submodelDescriptorFixture(smIds[1], 'Replaced'), semanticId: globalRef('urn:e2e:semantic:other') };
    const put = await registry.putSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[1], submodelDescriptor: sdkSubmodelDescriptor(replacement) });
    expect(ok(put)).toBeUndefined();
    expect(reg.wire.at(-1)).toMatchObject({ method: 'PUT', status: 204 });
    expect(submodelDescriptorJson(ok(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[1] })))).toEqual(replacement);
    // Replaced in place: the order stays.
    expect(ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier })).result.map((sm) => sm.idShort)).toEqual(['Sm0', 'Replaced', 'Sm2']);

    expect(ok(await registry.deleteSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[0] }))).toBeUndefined();
    expect(reg.wire.at(-1)).toMatchObject({ method: 'DELETE', status: 204 });
    expect(failureStatus(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[0] }))).toBe(404);
    expect(failureStatus(await registry.deleteSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[0] }))).toBe(404);
    expect(ok(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration, aasIdentifier })).result.map((sm) => sm.id)).toEqual(smIds.slice(1));

    // A duplicate is 409; under an absent shell descriptor, 404; a replacement of an absent one, 404.
    const again = await registry.postSubmodelDescriptorThroughSuperpath({ configuration, aasIdentifier, submodelDescriptor: sdkSubmodelDescriptor(submodelDescriptorFixture(smIds[2])) });
    expect(failureStatus(again)).toBe(409);
    const orphan = await registry.postSubmodelDescriptorThroughSuperpath({ configuration, aasIdentifier: 'urn:e2e:absent', submodelDescriptor: sdkSubmodelDescriptor(submodelDescriptorFixture('urn:e2e:sm:x')) });
    expect(failureStatus(orphan)).toBe(404);
    const absent = await registry.putSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: 'urn:e2e:sm:none', submodelDescriptor: sdkSubmodelDescriptor(submodelDescriptorFixture('urn:e2e:sm:none')) });
    expect4xx(failureStatus(absent));

    // Deleting the shell descriptor takes its submodel descriptors with it.
    ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier }));
    expect(failureStatus(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier, submodelIdentifier: smIds[1] }))).toBe(404);
  });

  it('pages and filters the shell descriptors', async () => {
    const { configuration } = reg;
    const ids = Array.from({ length: 5 }, (_, n) => `urn:e2e:registry:list:${n}`);
    for (const [n, id] of ids.entries()) {
      const doc = { ...fullShellDescriptor(id, `List${n}`), assetKind: n % 2 ? 'Type' : 'Instance', assetType: `urn:e2e:type:${n % 3}` };
      ok(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(doc) }));
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, limit: 2, cursor }));
      expect(page.result.length).toBeLessThanOrEqual(2);
      seen.push(...page.result.map((d) => d.id));
      cursor = page.pagedResult?.cursor;
    } while (cursor);
    expect(seen).toEqual(ids);
    const types = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, assetKind: 'Type' }));
    expect(types.result.map((d) => d.id)).toEqual([ids[1], ids[3]]);
    const ofType = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, assetType: 'urn:e2e:type:0' }));
    expect(ofType.result.map((d) => d.id)).toEqual([ids[0], ids[3]]);
    const both = ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration, assetType: 'urn:e2e:type:0', assetKind: 'Instance' }));
    expect(both.result.map((d) => d.id)).toEqual([ids[0]]);
    for (const id of ids) ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }));
  });

  it('refuses duplicates, mismatched ids and invalid descriptors with 4xx, and keeps what it has', async () => {
    const { configuration } = reg;
    const id = 'urn:e2e:registry:guarded';
    ok(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor(id, 'First')) }));
    expect(failureStatus(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor(id, 'Second')) }))).toBe(409);
    const mismatch = await registry.putAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor('urn:e2e:other', 'Other')) });
    expect(failureStatus(mismatch)).toBe(400);
    const absent = await registry.putAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: 'urn:e2e:absent', assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor('urn:e2e:absent')) });
    expect4xx(failureStatus(absent));
    const tooLong = `urn:e2e:${'x'.repeat(2001)}`;
    expect(failureStatus(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor({ id: tooLong }) }))).toBe(400);
    // The schema bounds an endpoint's interface to 128 characters (any name is allowed).
    const badEndpoint = { ...fullShellDescriptor('urn:e2e:bad-endpoint'), endpoints: [{ interface: 'A'.repeat(129), protocolInformation: { href: 'https://example.com' } }] };
    expect(failureStatus(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(badEndpoint) }))).toBe(400);
    expect(ok(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id })).idShort).toBe('First');
    expect(ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration })).result.map((d) => d.id)).toEqual([id]);
    ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: id }));
  });

  it('SDK quirks: numeric assetKind and security attribute types, supplementalSemanticIds, trimmed ids', async () => {
    const { configuration, base } = reg;
    // assetKind as the SDK sends it from the metamodel's enum: a number, which the schema refuses.
    const numeric = await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor('urn:e2e:quirk:kind'), true) });
    expect(failureStatus(numeric)).toBe(400);
    expect(reg.wire.at(-1)?.status).toBe(400);

    // The SDK's numeric security attribute type enum: refused; the schema's string works and comes back as is.
    const endpointWithEnum = sdkShellDescriptor(fullShellDescriptor('urn:e2e:quirk:security'));
    endpointWithEnum.endpoints![0].protocolInformation.securityAttributes = [{ type: Models.ProtocolInformationSecurityAttributesTypeEnum.None, key: 'NONE', value: 'NONE' }];
    expect(failureStatus(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: endpointWithEnum }))).toBe(400);
    const withString = ok(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor('urn:e2e:quirk:security')) }));
    expect(withString.endpoints?.[0].protocolInformation.securityAttributes).toEqual([{ type: 'NONE', key: 'NONE', value: 'NONE' }]);

    // supplementalSemanticId: the SDK writes `supplementalSemanticIds`, refused as an unknown property ...
    const supplemental = { ...submodelDescriptorFixture('urn:e2e:quirk:sm'), supplementalSemanticId: [globalRef('urn:e2e:supplemental')] };
    const written = await registry.postSubmodelDescriptorThroughSuperpath({ configuration, aasIdentifier: 'urn:e2e:quirk:security', submodelDescriptor: sdkSubmodelDescriptor(supplemental) });
    expect(failureStatus(written)).toBe(400);
    // ... and reads `supplementalSemanticIds`, so what the schema names is lost on the way in.
    const posted = await rest('POST', `${base}/shell-descriptors/${b64('urn:e2e:quirk:security')}/submodel-descriptors`, supplemental);
    expect(posted.status).toBe(201);
    const read = ok(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration, aasIdentifier: 'urn:e2e:quirk:security', submodelIdentifier: 'urn:e2e:quirk:sm' }));
    expect(lastBody(reg)).toEqual(supplemental);
    expect(read.supplementalSemanticIds).toBeNull();
    expect(submodelDescriptorJson(read)).toEqual(submodelDescriptorFixture('urn:e2e:quirk:sm'));

    // An id with a leading and a trailing space (valid): registered, but the SDK asks for the trimmed id.
    const padded = ' urn:e2e:quirk:padded ';
    ok(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor({ id: padded }) }));
    expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: padded }))).toBe(404);
    expect(reg.wire.at(-1)?.url).toBe(`${base}/shell-descriptors/${b64(padded.trim())}`);
    const direct = await rest('GET', `${base}/shell-descriptors/${b64(padded)}`);
    expect(direct.status).toBe(200);
    expect(await direct.json()).toEqual({ id: padded });
    expect((await rest('DELETE', `${base}/shell-descriptors/${b64(padded)}`)).status).toBe(204);
    ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration, aasIdentifier: 'urn:e2e:quirk:security' }));
  });

  it('has no submodel registry: the SubmodelRegistryClient at its base gets 404, and so does a discovery client', async () => {
    const { configuration } = reg;
    const sm = sdkSubmodelDescriptor(submodelDescriptorFixture('urn:e2e:sm:nowhere'));
    const attempts: [string, () => Promise<Outcome<unknown>>][] = [
      ['GET /submodel-descriptors', () => submodelRegistry.getAllSubmodelDescriptors({ configuration })],
      ['GET /submodel-descriptors/{id}', () => submodelRegistry.getSubmodelDescriptorById({ configuration, submodelIdentifier: 'urn:e2e:sm:nowhere' })],
      ['POST /submodel-descriptors', () => submodelRegistry.postSubmodelDescriptor({ configuration, submodelDescriptor: sm })],
      ['PUT /submodel-descriptors/{id}', () => submodelRegistry.putSubmodelDescriptorById({ configuration, submodelIdentifier: 'urn:e2e:sm:nowhere', submodelDescriptor: sm })],
      ['DELETE /submodel-descriptors/{id}', () => submodelRegistry.deleteSubmodelDescriptorById({ configuration, submodelIdentifier: 'urn:e2e:sm:nowhere' })],
      // This instance is a registry, not a discovery service.
      ['GET /lookup/shells', () => discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration, assetIds: [{ name: 'a', value: 'b' }] })],
      ['POST /lookup/shells/{id}', () => discovery.postAllAssetLinksById({ configuration, aasIdentifier: 'urn:e2e:x', specificAssetId: [specificAssetId('a', 'b')] })],
    ];
    for (const [label, attempt] of attempts) {
      expect(failureStatus(await attempt()), label).toBe(404);
      expect(reg.wire.at(-1)?.status, label).toBe(404);
      const text = (reg.wire.at(-1)?.body as { messages: { text: string }[] }).messages[0].text;
      expect(text.length, label).toBeGreaterThan(0);
    }
    // An instance name the tenant does not have.
    const none = service(`${tenantUrl(reg.tenant)}/no-such-instance/api/v3.0`);
    expect(failureStatus(await registry.getAllAssetAdministrationShellDescriptors({ configuration: none.configuration }))).toBe(404);
  });
});

describe('an explicit discovery instance: asset links through the SDK', () => {
  let disco: Service;
  beforeAll(async () => {
    disco = await instanceOfNewTenant('discovery-a', 'discovery');
  });

  it('posts, reads, looks up and deletes asset links', async () => {
    const { configuration, base, discoveryApi } = disco;
    const pump = 'https://example.com/aas/Pümpe/7?q=1#𝄞';
    const valve = 'urn:e2e:aas:valve';
    const pumpLinks = [
      new aas.SpecificAssetId('serialNumber', 'S-7', null, null, new aas.Reference(aas.ReferenceTypes.ExternalReference, [new aas.Key(aas.KeyTypes.GlobalReference, 'urn:e2e:customer')])),
      specificAssetId('manufacturer', 'ACME'),
      specificAssetId('globalAssetId', 'urn:e2e:asset:pump7'),
    ];
    const valveLinks = [specificAssetId('serialNumber', 'V-1'), specificAssetId('manufacturer', 'ACME')];

    const created = ok(await discovery.postAllAssetLinksById({ configuration, aasIdentifier: pump, specificAssetId: pumpLinks }));
    expect(disco.wire.at(-1)).toMatchObject({ method: 'POST', url: `${base}/lookup/shells/${b64(pump)}`, status: 201 });
    expect(assetLinksJson(created)).toEqual(assetLinksJson(pumpLinks));
    expect(lastBody(disco)).toEqual(assetLinksJson(pumpLinks));
    ok(await discovery.postAllAssetLinksById({ configuration, aasIdentifier: valve, specificAssetId: valveLinks }));

    const got = ok(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: pump }));
    expect(disco.wire.at(-1)).toMatchObject({ method: 'GET', url: `${base}/lookup/shells/${b64(pump)}`, status: 200 });
    expect(assetLinksJson(got)).toEqual(assetLinksJson(pumpLinks));
    expect(lastBody(disco)).toEqual(assetLinksJson(pumpLinks));

    const lookup = async (assetIds: Sdk.Models.AssetId[], more: { limit?: number; cursor?: string } = {}) =>
      ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration, assetIds, ...more }));
    expect((await lookup([{ name: 'serialNumber', value: 'S-7' }])).result).toEqual([pump]);
    expect((await lookup([{ name: 'manufacturer', value: 'ACME' }])).result).toEqual([pump, valve]);
    expect((await lookup([{ name: 'manufacturer', value: 'ACME' }, { name: 'serialNumber', value: 'V-1' }])).result).toEqual([valve]);
    expect((await lookup([{ name: 'globalAssetId', value: 'urn:e2e:asset:pump7' }])).result).toEqual([pump]);
    expect((await lookup([{ name: 'serialNumber', value: 'S-8' }])).result).toEqual([]);
    const first = await lookup([{ name: 'manufacturer', value: 'ACME' }], { limit: 1 });
    expect(first.result).toEqual([pump]);
    const second = await lookup([{ name: 'manufacturer', value: 'ACME' }], { limit: 1, cursor: first.pagedResult!.cursor });
    expect(second.result).toEqual([valve]);
    expect(second.pagedResult?.cursor).toBeFalsy();
    const searched = await discoveryApi.searchAllAssetAdministrationShellIdsByAssetLink({ assetLink: [{ name: 'manufacturer', value: 'ACME' }] });
    expect(disco.wire.at(-1)).toMatchObject({ method: 'POST', url: `${base}/lookup/shellsByAssetLink`, status: 200 });
    expect(searched.result).toEqual([pump, valve]);
    expect((await discoveryApi.searchAllAssetAdministrationShellIdsByAssetLink({ assetLink: [{ name: 'serialNumber', value: 'V-1' }] })).result).toEqual([valve]);

    // Linked already: 409, the links stay as they were.
    expect(failureStatus(await discovery.postAllAssetLinksById({ configuration, aasIdentifier: pump, specificAssetId: [specificAssetId('x', 'y')] }))).toBe(409);
    expect(assetLinksJson(ok(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: pump })))).toEqual(assetLinksJson(pumpLinks));

    expect(ok(await discovery.deleteAllAssetLinksById({ configuration, aasIdentifier: pump }))).toBeUndefined();
    expect(disco.wire.at(-1)).toMatchObject({ method: 'DELETE', url: `${base}/lookup/shells/${b64(pump)}`, status: 204 });
    expect(failureStatus(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: pump }))).toBe(404);
    expect(failureStatus(await discovery.deleteAllAssetLinksById({ configuration, aasIdentifier: pump }))).toBe(404);
    expect((await lookup([{ name: 'manufacturer', value: 'ACME' }])).result).toEqual([valve]);
    // Linked anew after the delete.
    ok(await discovery.postAllAssetLinksById({ configuration, aasIdentifier: pump, specificAssetId: [specificAssetId('rfid', 'R-7')] }));
    expect((await lookup([{ name: 'rfid', value: 'R-7' }])).result).toEqual([pump]);
    expect((await lookup([{ name: 'serialNumber', value: 'S-7' }])).result).toEqual([]);
  });

  it('refuses bad input with 400, and registry clients with 404', async () => {
    const { configuration, discoveryApi } = disco;
    expect((await generatedFailure(discoveryApi.getAllAssetAdministrationShellIdsByAssetLink({ assetIds: ['S-7'] }))).status).toBe(400);
    expect(failureStatus(await discovery.postAllAssetLinksById({ configuration, aasIdentifier: 'urn:e2e:empty', specificAssetId: [] }))).toBe(400);
    expect(failureStatus(await discovery.postAllAssetLinksById({ configuration, aasIdentifier: `urn:e2e:${'x'.repeat(2041)}`, specificAssetId: [specificAssetId('a', 'b')] }))).toBe(400);
    expect(failureStatus(await discovery.getAllAssetLinksById({ configuration, aasIdentifier: 'urn:e2e:empty' }))).toBe(404);

    expect(failureStatus(await registry.getAllAssetAdministrationShellDescriptors({ configuration }))).toBe(404);
    expect(failureStatus(await registry.postAssetAdministrationShellDescriptor({ configuration, assetAdministrationShellDescriptor: sdkShellDescriptor({ id: 'urn:e2e:x' }) }))).toBe(404);
    expect(failureStatus(await submodelRegistry.getAllSubmodelDescriptors({ configuration }))).toBe(404);
  });
});

describe('isolation: instances of one tenant, instances of the same name in another tenant, the implicit services', () => {
  let tenant: TenantEntity;
  let other: TenantEntity;
  let regA: Service;
  let regB: Service;
  let otherReg: Service;
  let discoA: Service;
  let discoB: Service;
  let otherDisco: Service;
  let implicit: Service;

  beforeAll(async () => {
    tenant = await server.createTenant();
    other = await server.createTenant();
    regA = await instance(tenant, 'registry-a', 'aas-registry');
    regB = await instance(tenant, 'registry-b', 'aas-registry');
    otherReg = await instance(other, 'registry-a', 'aas-registry');
    discoA = await instance(tenant, 'discovery-a', 'discovery');
    discoB = await instance(tenant, 'discovery-b', 'discovery');
    otherDisco = await instance(other, 'discovery-a', 'discovery');
    implicit = service(server.api(tenant.name));
  });

  it('keeps shell descriptors in the instance they were registered in', async () => {
    const id = 'urn:e2e:isolated:shell';
    ok(await registry.postAssetAdministrationShellDescriptor({ configuration: regA.configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor(id, 'InA')) }));

    for (const elsewhere of [regB, otherReg]) {
      expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration: elsewhere.configuration, aasIdentifier: id }))).toBe(404);
      expect(ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration: elsewhere.configuration })).result).toEqual([]);
      expect(failureStatus(await registry.getAllSubmodelDescriptorsThroughSuperpath({ configuration: elsewhere.configuration, aasIdentifier: id }))).toBe(404);
      expect(failureStatus(await registry.deleteAssetAdministrationShellDescriptorById({ configuration: elsewhere.configuration, aasIdentifier: id }))).toBe(404);
    }
    // Not in the implicit registry of its tenant, nor its asset ids in the implicit discovery.
    expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration: implicit.configuration, aasIdentifier: id }))).toBe(404);
    expect(ok(await registry.getAllAssetAdministrationShellDescriptors({ configuration: implicit.configuration })).result).toEqual([]);
    expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: implicit.configuration, assetIds: [{ name: 'serialNumber', value: 'SN-InA' }] })).result).toEqual([]);

    // The same id in B and in the other tenant: each its own descriptor; a change or delete in one leaves the others.
    ok(await registry.postAssetAdministrationShellDescriptor({ configuration: regB.configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor(id, 'InB')) }));
    ok(await registry.postAssetAdministrationShellDescriptor({ configuration: otherReg.configuration, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor(id, 'InOther')) }));
    ok(await registry.putAssetAdministrationShellDescriptorById({ configuration: regA.configuration, aasIdentifier: id, assetAdministrationShellDescriptor: sdkShellDescriptor(fullShellDescriptor(id, 'InAChanged')) }));
    ok(await registry.postSubmodelDescriptorThroughSuperpath({ configuration: regB.configuration, aasIdentifier: id, submodelDescriptor: sdkSubmodelDescriptor(submodelDescriptorFixture('urn:e2e:isolated:sm-b')) }));
    const idShortIn = async (s: Service) => ok(await registry.getAssetAdministrationShellDescriptorById({ configuration: s.configuration, aasIdentifier: id })).idShort;
    expect([await idShortIn(regA), await idShortIn(regB), await idShortIn(otherReg)]).toEqual(['InAChanged', 'InB', 'InOther']);
    expect(failureStatus(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration: regA.configuration, aasIdentifier: id, submodelIdentifier: 'urn:e2e:isolated:sm-b' }))).toBe(404);
    expect(failureStatus(await registry.getSubmodelDescriptorByIdThroughSuperpath({ configuration: otherReg.configuration, aasIdentifier: id, submodelIdentifier: 'urn:e2e:isolated:sm-b' }))).toBe(404);

    ok(await registry.deleteAssetAdministrationShellDescriptorById({ configuration: regA.configuration, aasIdentifier: id }));
    expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration: regA.configuration, aasIdentifier: id }))).toBe(404);
    expect([await idShortIn(regB), await idShortIn(otherReg)]).toEqual(['InB', 'InOther']);
  });

  it('keeps asset links in the discovery instance they were posted to', async () => {
    const aasId = 'urn:e2e:isolated:linked';
    const serial = { name: 'serialNumber', value: 'ISO-1' };
    ok(await discovery.postAllAssetLinksById({ configuration: discoA.configuration, aasIdentifier: aasId, specificAssetId: [specificAssetId(serial.name, serial.value)] }));
    expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: discoA.configuration, assetIds: [serial] })).result).toEqual([aasId]);

    for (const elsewhere of [discoB, otherDisco, implicit]) {
      expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: elsewhere.configuration, assetIds: [serial] })).result).toEqual([]);
      expect(failureStatus(await discovery.getAllAssetLinksById({ configuration: elsewhere.configuration, aasIdentifier: aasId }))).toBe(404);
      expect((await elsewhere.discoveryApi.searchAllAssetAdministrationShellIdsByAssetLink({ assetLink: [serial] })).result).toEqual([]);
    }
    for (const elsewhere of [discoB, otherDisco]) {
      expect(failureStatus(await discovery.deleteAllAssetLinksById({ configuration: elsewhere.configuration, aasIdentifier: aasId }))).toBe(404);
    }

    // The same shell linked in B and in the other tenant to other asset ids: each lookup sees its own.
    ok(await discovery.postAllAssetLinksById({ configuration: discoB.configuration, aasIdentifier: aasId, specificAssetId: [specificAssetId('serialNumber', 'ISO-B')] }));
    ok(await discovery.postAllAssetLinksById({ configuration: otherDisco.configuration, aasIdentifier: aasId, specificAssetId: [specificAssetId('serialNumber', 'ISO-OTHER')] }));
    const linksIn = async (s: Service) => assetLinksJson(ok(await discovery.getAllAssetLinksById({ configuration: s.configuration, aasIdentifier: aasId })));
    expect([await linksIn(discoA), await linksIn(discoB), await linksIn(otherDisco)]).toEqual([[serial], [{ name: 'serialNumber', value: 'ISO-B' }], [{ name: 'serialNumber', value: 'ISO-OTHER' }]]);
    ok(await discovery.deleteAllAssetLinksById({ configuration: discoA.configuration, aasIdentifier: aasId }));
    expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: discoB.configuration, assetIds: [{ name: 'serialNumber', value: 'ISO-B' }] })).result).toEqual([aasId]);
    expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: otherDisco.configuration, assetIds: [{ name: 'serialNumber', value: 'ISO-OTHER' }] })).result).toEqual([aasId]);

    // A shell of the tenant's repository is in its implicit discovery only.
    const shell = { modelType: 'AssetAdministrationShell', id: 'urn:e2e:isolated:repo-shell', assetInformation: { assetKind: 'Instance', specificAssetIds: [{ name: 'serialNumber', value: 'ISO-REPO' }] } };
    await seed(server.api(tenant.name), 'shells', shell);
    const repoSerial = [{ name: 'serialNumber', value: 'ISO-REPO' }];
    expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: implicit.configuration, assetIds: repoSerial })).result).toEqual([shell.id]);
    for (const elsewhere of [discoA, discoB, otherDisco]) {
      expect(ok(await discovery.getAllAssetAdministrationShellIdsByAssetLink({ configuration: elsewhere.configuration, assetIds: repoSerial })).result).toEqual([]);
    }
    for (const elsewhere of [regA, regB]) {
      expect(failureStatus(await registry.getAssetAdministrationShellDescriptorById({ configuration: elsewhere.configuration, aasIdentifier: shell.id }))).toBe(404);
    }
  });

  it('answers each instance\'s description with its own profile', async () => {
    const profilesOf = async (s: Service, api: { getSelfDescription(): Promise<{ profiles?: string[] }> }) => {
      const description = await api.getSelfDescription();
      expect(s.wire.at(-1)).toMatchObject({ method: 'GET', url: `${s.base}/description`, status: 200 });
      return description.profiles ?? [];
    };
    const registryProfiles = await profilesOf(regA, new AasRegistryService.DescriptionAPIApi(regA.configuration));
    expect(registryProfiles.some((p) => p.includes('AssetAdministrationShellRegistryServiceSpecification/SSP-001'))).toBe(true);
    const discoveryProfiles = await profilesOf(discoA, new AasDiscoveryService.DescriptionAPIApi(discoA.configuration));
    expect(discoveryProfiles.some((p) => p.includes('DiscoveryServiceSpecification/SSP-001'))).toBe(true);
  });
});
