import { Bundler, Json, PART2, specDir } from './bundle';
import { OPENAPI_VERSION, SECURITY, ServedRoute, openApiPath, pathShape, securitySchemes } from './common';
import { platformOperation } from './platform-operations';
import { pushTargetOperation } from './push-target-operations';
import { dccOperation } from './dcc-operations';
import { semanticOperation } from './semantic-operations';
import { searchOperation } from './search-operation';
import { repositoryQueryOperation } from './query-operations';

/** The service specifications whose operations a tenant's API V3.0 serves, searched in this order. */
const SERVICE_FILES = [
  'AssetAdministrationShellRepositoryServiceSpecification/V3.0_SSP-001.yaml',
  'SubmodelRepositoryServiceSpecification/V3.0_SSP-001.yaml',
  'ConceptDescriptionServiceSpecification/V3.0_SSP-001.yaml',
  // The implicit services: the registries' read profiles, and the reads of the discovery's only profile.
  'AssetAdministrationShellRegistryServiceSpecification/V3.0_SSP-002.yaml',
  'SubmodelRegistryServiceSpecification/V3.0_SSP-002.yaml',
  'DiscoveryServiceSpecification/V3.0_SSP-001.yaml',
  // Last: the operations the service profiles above do not have (serialization, packages, upload).
  'Entire-API-Collection/V3.0.yaml',
];

/** The service specifications of explicit registry instances (each instance serves the operations of its kind). */
const INSTANCE_FILES = ['AssetAdministrationShellRegistryServiceSpecification/V3.0_SSP-001.yaml', 'DiscoveryServiceSpecification/V3.0_SSP-001.yaml'];

/** The same for the API V3.1: V3.1.2 has a read profile of the discovery (SSP-002), and the AASX File Server's file. */
const SERVICE_FILES_V31 = [
  'AssetAdministrationShellRepositoryServiceSpecification/V3.1_SSP-001.yaml',
  'SubmodelRepositoryServiceSpecification/V3.1_SSP-001.yaml',
  'ConceptDescriptionRepositoryServiceSpecification/V3.1_SSP-001.yaml',
  'AssetAdministrationShellRegistryServiceSpecification/V3.1_SSP-002.yaml',
  'SubmodelRegistryServiceSpecification/V3.1_SSP-002.yaml',
  'DiscoveryServiceSpecification/V3.1_SSP-002.yaml',
  'AasxFileServerServiceSpecification/V3.1_SSP-001.yaml',
  'Entire-API-Collection/V3.1.yaml',
];
const INSTANCE_FILES_V31 = ['AssetAdministrationShellRegistryServiceSpecification/V3.1_SSP-001.yaml', 'DiscoveryServiceSpecification/V3.1_SSP-001.yaml'];

/** An AAS API release whose vendored files a document is built from. */
interface Release {
  /** The directory of its files below rest-facade/openapi. */
  dir: string;
  /** `V3.0.4`: the document's version. */
  name: string;
  serviceFiles: readonly string[];
  instanceFiles: readonly string[];
}

/** The release each API base serves (rest-facade/api-versions.ts). */
const RELEASES: Record<string, Release> = {
  '/api/v3.0': { dir: 'aas-api-v3.0.4', name: 'V3.0.4', serviceFiles: SERVICE_FILES, instanceFiles: INSTANCE_FILES },
  '/api/v3.1': { dir: 'aas-api-v3.1.2', name: 'V3.1.2', serviceFiles: SERVICE_FILES_V31, instanceFiles: INSTANCE_FILES_V31 },
};

function releaseOf(apiBase: string): Release {
  const release = RELEASES[apiBase];
  if (!release) throw new Error(`No AAS API release is served at ${apiBase}.`);
  return release;
}

/** A query parameter of this server's own, beside an official operation's. */
const SUBMODEL_SEMANTIC_ID = {
  name: 'submodelSemanticId',
  in: 'query',
  required: false,
  description:
    'Shell descriptors with a submodel descriptor of this semantic id (BASE64-URL-encoded): a Reference in JSON matches that reference (type and keys), ' +
    "anything else the value of one of its keys. An addition of this server (see its README).",
  schema: { type: 'string', minLength: 1 },
};

/** A text filter of this server's on shell and submodel lists (README, "Filter queries"). */
const textFilter = (name: string, what: string): Json => ({
  name,
  in: 'query',
  required: false,
  description: `Only those whose ${what}. Case-sensitive, by code point; \`%\` and \`_\` are plain characters. All filters given must hold. An addition of this server (see its README).`,
  schema: { type: 'string', minLength: 1, maxLength: 2000 },
});
const ID_TEXT_FILTERS = [
  textFilter('idShortStartsWith', 'idShort starts with this text'),
  textFilter('idShortContains', 'idShort contains this text'),
  textFilter('idStartsWith', 'id starts with this text'),
  textFilter('idContains', 'id contains this text'),
];
const SHELL_TEXT_FILTERS = [
  'AssetKind',
  ...ID_TEXT_FILTERS,
  textFilter('displayName', 'displayName has a text (any language) equal to this text'),
  textFilter('displayNameStartsWith', 'displayName has a text (any language) that starts with this text'),
  textFilter('displayNameContains', 'displayName has a text (any language) that contains this text'),
];

/** `kind` on submodel lists: Part 2 has no such parameter, the metamodel's ModellingKind is the filter. */
const KIND_FILTER = {
  name: 'kind',
  in: 'query',
  required: false,
  description: 'Only submodels of this kind (absent: all). An addition of this server (see its README).',
  schema: { type: 'string', enum: ['Instance', 'Template'] },
};
/** The semantic connector's matching of the semanticId filter (docs/semantic-connector.md). */
const SEMANTIC_ID_MATCHING: Json = {
  name: 'semanticIdMatching',
  in: 'query',
  required: false,
  description:
    'How semanticId matches: `exact` (default), as written; `equivalent`, by the semantic connector\'s equivalence (IRDI spellings and versions, ' +
    'isCaseOf, the tenant\'s equivalence sets), by the first key of the given semanticId. An addition of this server (experimental).',
  schema: { type: 'string', enum: ['exact', 'equivalent'], default: 'exact' },
};
const SUBMODEL_FILTERS = [KIND_FILTER, ...ID_TEXT_FILTERS, SEMANTIC_ID_MATCHING];

/**
 * Query parameters this server takes beyond the official operation's (by `METHOD /path` below the AAS API, `{}`
 * for parameters): Part 2 parameters by name, or parameters of its own. The filters the issue asks of the
 * registries and discovery that V3.0.4's operations lack.
 */
type Extras = Record<string, (string | Json)[]>;
const TENANT_EXTRAS: Extras = {
  'GET /shells': SHELL_TEXT_FILTERS,
  'GET /shells/$reference': SHELL_TEXT_FILTERS,
  ...Object.fromEntries(['', '/$metadata', '/$value', '/$reference', '/$path'].map((form) => [`GET /submodels${form}`, SUBMODEL_FILTERS])),
  // This server's own list (V3.0.4 has no such operation): paged, with the modifiers of GET /submodels.
  'GET /shells/{}/submodels': ['Limit', 'Cursor', 'Level', 'Extent'],
  // A submodel's routes under its shell take the modifiers they take under /submodels, where the AAS Repository's
  // operations lack one the Submodel Repository's have.
  'GET /shells/{}/submodels/{}/submodel-elements/$value': ['Extent'],
  'PUT /shells/{}/submodels/{}/submodel-elements/{}': ['Level'],
  'GET /lookup/shells': ['AssetKind', 'AssetType'],
  'GET /serialization': [
    {
      name: 'allConceptDescriptions',
      in: 'query',
      required: false,
      description:
        'With aasIds or submodelIds: every concept description of the tenant, not only those the shells and submodels reference (default false; ' +
        'contradicts includeConceptDescriptions=false, 400). Without ids every one is included anyway. An addition of this server (see its README).',
      schema: { type: 'boolean', default: false },
    },
  ],
  'GET /shell-descriptors': ['AssetIds'],
  'GET /shell-descriptors/{}/submodel-descriptors': ['SemanticId'],
  'GET /submodel-descriptors': ['SemanticId'],
};
/** What this server does where it answers an official operation otherwise than the specification says. */
const IMPLICIT_PUT =
  "On the tenant's implicit registry, which derives every descriptor from the repository and stores none: a body that states what is " +
  'derived (members left out or null are not compared) changes nothing and is 204; any other is 409 with a Result naming the member that ' +
  'differs (a stale If-Match is 412). Write the shell or submodel in the repository instead, or keep descriptors of your own in an explicit AAS registry instance.';
const TENANT_NOTES: Record<string, string> = {
  'PUT /shell-descriptors/{}': IMPLICIT_PUT,
  'PUT /shell-descriptors/{}/submodel-descriptors/{}': IMPLICIT_PUT,
  'PUT /submodel-descriptors/{}': IMPLICIT_PUT,
};
const INSTANCE_EXTRAS: Extras = {
  // As on the implicit discovery (platform spec): they filter by the tenant's shells of the linked ids.
  'GET /lookup/shells': ['AssetKind', 'AssetType'],
  'GET /shell-descriptors': ['AssetIds', SUBMODEL_SEMANTIC_ID],
  'GET /shell-descriptors/{}/submodel-descriptors': ['SemanticId'],
};


export interface TenantDocumentOptions {
  manageUrl: string;
  /** `/api/v3.0` or `/api/v3.1`: where the AAS API is below the tenant URL, the document's server; it picks the release. */
  apiBase: string;
  /** The tenant URL, the server of the paths outside `apiBase` (the platform's own, below `/sphere/api/v1.0`). */
  tenantUrl: string;
}

/**
 * The OpenAPI 3.1 document of a tenant's API: the paths and methods `served` (relative to the tenant URL). Those
 * below `/api/v3.0` get the operation the official V3.0.4 service specifications give them (description,
 * parameters, responses, schemas), bundled into one self-contained document; the platform's own routes (the file
 * repository, at both its locations, and the AASX import) get theirs from platform-operations.ts, and any other
 * route a short operation of its own. Paths outside `/api/v3.0` carry the tenant URL as their own server, their
 * path the rest. `servers` is left for the caller (one URL per tenant).
 */
export function tenantDocument(served: ServedRoute[], options: TenantDocumentOptions): Json {
  const release = releaseOf(options.apiBase);
  const v31 = release.name.startsWith('V3.1');
  return aasApiDocument(
    `Asset platform | AAS API ${release.name} (tenant)`,
    `The operations of the Asset Administration Shell API (Specification of the Asset Administration Shell, Part 2, ${release.name}) that this ` +
      'tenant serves: the AAS Repository, Submodel Repository and Concept Description Repository (full profiles, SSP-001), and the ' +
      "tenant's implicit registries and discovery, derived from its shells and submodels and read-only (a PUT of a descriptor as derived is 204 and changes nothing; AAS Registry and Submodel Registry " +
      (v31
        ? 'read profiles, SSP-002; the Discovery read profile, SSP-002), the query profiles and the AASX File Server. '
        : 'read profiles, SSP-002; the reads of Discovery SSP-001; `POST /lookup/shellsByAssetLink` of V3.1). ') +
      (v31
        ? 'Documents are read and written in the metamodel V3.1, as stored; the same data is served in V3.0 at `{tenant_url}/api/v3.0`. '
        : 'Documents are served in the metamodel V3.0: one that needs V3.1 is mapped down, and its answer says so (header `X-AAS-Version-Mapped: 3.1->3.0`); `{tenant_url}/api/v3.1` serves it as stored. ') +
      'Descriptions, parameters and schemas are those of the official OpenAPI files of the Industrial Digital Twin Association (IDTA), CC BY 4.0 ' +
      '(https://creativecommons.org/licenses/by/4.0/), bundled into this document. Where the specification leaves a choice open, the ' +
      "server's README documents it. Beside the AAS API, the platform's own services of the tenant: the file repository at " +
      '`{tenant_url}/sphere/api/v1.0/files`' +
      (v31 ? '' : ' (also served, deprecated, at `{tenant_url}/api/v3.0/files`)') +
      ` and the AASX import. Explicit registry instances, at \`{tenant_url}/{instanceName}${options.apiBase}\`, have a document of their own there (\`openapi.json\`). Tenants in ` +
      'showcase mode need no token.',
    apiPaths(served, release, TENANT_EXTRAS, options, TENANT_NOTES),
    options,
  );
}

/**
 * The OpenAPI 3.1 document of a tenant's explicit registry instances, at `{tenant_url}/{instanceName}/api/v3.0`:
 * the paths and methods `served` relative to that URL. One document for both kinds: an instance serves the
 * operations of its kind (tags: the discovery's, or the AAS registry's) and answers the others 404.
 */
export function instanceDocument(served: ServedRoute[], options: TenantDocumentOptions): Json {
  const release = releaseOf(options.apiBase);
  return aasApiDocument(
    `Asset platform | AAS API ${release.name} (explicit registry instance)`,
    "An explicit instance of a tenant, created by an operator (Management API, GraphQL), with data of its own: either a discovery service " +
      '(Discovery full profile SSP-001, plus `POST /lookup/shellsByAssetLink` of V3.1) or an AAS registry (AAS Registry full profile SSP-001, ' +
      'submodel descriptors under their shell descriptor). An instance answers the operations of the other kind with 404, as it does any ' +
      `\`/submodel-descriptors\` path: there is no explicit submodel registry (the tenant's implicit one is at \`{tenant_url}${options.apiBase}/submodel-descriptors\`). ` +
      'Descriptions, parameters and schemas are those of the official OpenAPI files of the Industrial Digital Twin Association (IDTA), CC BY 4.0 ' +
      "(https://creativecommons.org/licenses/by/4.0/), bundled into this document; the server's README documents its choices.",
    apiPaths(served, release, INSTANCE_EXTRAS, options, {}, 'instance'),
    options,
  );
}

/** An OpenAPI document of AAS API paths (bundled from the IDTA files, under their licence), served at `options.apiBase`. */
function aasApiDocument(title: string, description: string, { bundler, paths }: ReturnType<typeof apiPaths>, options: TenantDocumentOptions): Json {
  return {
    openapi: OPENAPI_VERSION,
    info: { title, version: releaseOf(options.apiBase).name, description, license: { name: 'CC BY 4.0 (the AAS API descriptions)', url: 'https://creativecommons.org/licenses/by/4.0/' } },
    servers: [{ url: options.apiBase }],
    security: SECURITY,
    paths,
    components: { ...bundler.components, securitySchemes: securitySchemes(options.manageUrl) },
  };
}

/** The path items of `served`, each operation from the first of `files` that has it (or this server's own). */
function apiPaths(
  served: ServedRoute[],
  release: Release,
  extras: Extras,
  options: TenantDocumentOptions,
  notes: Record<string, string> = {},
  kind: 'tenant' | 'instance' = 'tenant',
): { bundler: Bundler; paths: Record<string, Json> } {
  const { apiBase } = options;
  const files = kind === 'tenant' ? release.serviceFiles : release.instanceFiles;
  const bundler = new Bundler(specDir(release.dir));
  // path shape -> [the specification's path text, its path item, its file], per file in order: an operation comes
  // from the first file whose path item has its method.
  const specPaths = new Map<string, [string, Json, string][]>();
  for (const file of files) {
    for (const [path, item] of Object.entries(bundler.file(file).paths as Record<string, Json>)) {
      const list = specPaths.get(pathShape(path)) ?? [];
      list.push([path, item, file]);
      specPaths.set(pathShape(path), list);
    }
  }
  const paths: Record<string, Json> = {};
  const operationIds = new Set<string>();
  const unique = (id: string) => {
    let out = id;
    for (let n = 2; operationIds.has(out); n++) out = `${id}_${n}`;
    operationIds.add(out);
    return out;
  };
  for (const route of served) {
    const method = route.method.toLowerCase();
    const inApi = route.path.startsWith(`${apiBase}/`);
    const relative = inApi ? route.path.slice(apiBase.length) : route.path;
    const own = platformOperation(bundler, method, openApiPath(route.path), apiBase) ?? searchOperation(bundler, method, openApiPath(route.path), apiBase) ?? repositoryQueryOperation(bundler, method, openApiPath(route.path), apiBase) ?? pushTargetOperation(bundler, method, openApiPath(route.path)) ?? dccOperation(bundler, method, openApiPath(route.path)) ?? semanticOperation(bundler, method, openApiPath(route.path));
    const candidates = own || !inApi ? [] : specPaths.get(pathShape(relative)) ?? [];
    const found = candidates.find(([, item]) => item[method]) ?? candidates[0];
    const specOperation = found?.[1][method];
    const path = specOperation ? found[0] : openApiPath(relative);
    const item = (paths[path] ??= inApi ? {} : { servers: [{ url: options.tenantUrl, description: 'The tenant URL: the platform\'s own services are beside the AAS API.' }] });
    if (item[method]) continue;
    const more = (extras[`${route.method.toUpperCase()} ${pathShape(relative)}`] ?? []).map((p) =>
      typeof p === 'string' ? bundler.copy({ $ref: `#/components/parameters/${p}` }, PART2) : p,
    );
    if (own) {
      item[method] = { ...own, operationId: unique(own.operationId) };
    } else if (specOperation) {
      const [, specItem, file] = found;
      // Path-level parameters (the identifiers) belong to every operation of the path; the server may serve only some.
      const shared = specItem.parameters ? bundler.copy(specItem.parameters, file) : [];
      const operation = bundler.copy(specOperation, file);
      if (shared.length) operation.parameters = [...shared, ...(operation.parameters ?? [])];
      if (more.length) operation.parameters = [...(operation.parameters ?? []), ...more];
      operation.operationId = unique(operation.operationId ?? `${method}${path}`);
      const note = notes[`${route.method.toUpperCase()} ${pathShape(relative)}`];
      if (note) operation.description = `${note}\n\n${operation.description ?? operation.summary ?? ''}`.trim();
      item[method] = operation;
    } else {
      const operation = ownOperation(method, path, unique, bundler);
      operation.parameters.push(...more);
      item[method] = operation;
    }
  }
  // The Result every error answers with, whether or not an operation above referred to it.
  bundler.copy({ $ref: `https://api.swaggerhub.com/domains/Plattform_i40/Part2-API-Schemas/V3.0.4#/components/schemas/Result` }, PART2);
  return { bundler, paths };
}

/** An operation for a route the specifications lack: its path parameters, JSON answers, Result errors. */
function ownOperation(method: string, path: string, unique: (id: string) => string, bundler: Bundler): Json {
  const ref = (kind: string, name: string) => ({ $ref: bundler.copy({ $ref: `#/components/${kind}/${name}` }, PART2).$ref });
  const parameters = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    description: name === 'idShortPath' ? 'IdShort path to the submodel element (dot-separated)' : `The ${name} (UTF8-BASE64-URL-encoded)`,
    schema: { type: 'string' },
  }));
  return {
    summary: `${method.toUpperCase()} ${path} (an addition of this server, see its README)`,
    operationId: unique(`${method}${path.replace(/[^A-Za-z0-9]+/g, '_')}`),
    parameters,
    responses: {
      '200': { description: 'Success', content: { 'application/json': { schema: {} } } },
      '400': ref('responses', 'bad-request'),
      '401': ref('responses', 'unauthorized'),
      '403': ref('responses', 'forbidden'),
      '404': ref('responses', 'not-found'),
      default: ref('responses', 'default'),
    },
  };
}
