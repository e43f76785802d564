import { Bundler, Json, specDir } from './bundle';
import { OPENAPI_VERSION, SECURITY, ServedRoute, openApiPath, pathShape, securitySchemes } from './common';

/** The service specifications whose operations this server serves, searched in this order. */
const SERVICE_FILES = [
  'AssetAdministrationShellRepositoryServiceSpecification/V3.0_SSP-001.yaml',
  'SubmodelRepositoryServiceSpecification/V3.0_SSP-001.yaml',
  'ConceptDescriptionServiceSpecification/V3.0_SSP-001.yaml',
  // Last: the operations the service profiles above do not have (serialization, packages, upload).
  'Entire-API-Collection/V3.0.yaml',
];

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
const PART2 = 'Part2-API-Schemas/openapi.yaml';

/**
 * The OpenAPI 3.1 document of a tenant's AAS API: the paths and methods `served` (relative to `/api/v3.0`), each
 * with the operation the official V3.0.4 service specifications give it (description, parameters, responses,
 * schemas), bundled into one self-contained document. A route the specifications do not have (the server's own
 * additions) gets a short operation of its own. `servers` is left for the caller (one URL per tenant).
 */
export function tenantDocument(served: ServedRoute[], manageUrl: string): Json {
  const bundler = new Bundler(specDir());
  // path shape -> [the specification's path text, its path item, its file]
  const specPaths = new Map<string, [string, Json, string]>();
  for (const file of SERVICE_FILES) {
    for (const [path, item] of Object.entries(bundler.file(file).paths as Record<string, Json>)) {
      if (!specPaths.has(pathShape(path))) specPaths.set(pathShape(path), [path, item, file]);
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
    const found = specPaths.get(pathShape(route.path));
    const specOperation = found?.[1][method];
    const path = specOperation ? found[0] : openApiPath(route.path);
    const item = (paths[path] ??= {});
    if (item[method]) continue;
    if (specOperation) {
      const [, specItem, file] = found;
      // Path-level parameters (the identifiers) belong to every operation of the path; the server may serve only some.
      const shared = specItem.parameters ? bundler.copy(specItem.parameters, file) : [];
      const operation = bundler.copy(specOperation, file);
      if (shared.length) operation.parameters = [...shared, ...(operation.parameters ?? [])];
      operation.operationId = unique(operation.operationId ?? `${method}${path}`);
      item[method] = operation;
    } else {
      item[method] = ownOperation(method, path, unique, bundler);
    }
  }
  // The Result every error answers with, whether or not an operation above referred to it.
  bundler.copy({ $ref: `https://api.swaggerhub.com/domains/Plattform_i40/Part2-API-Schemas/V3.0.4#/components/schemas/Result` }, PART2);
  const components = { ...bundler.components, securitySchemes: securitySchemes(manageUrl) };
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Asset platform | AAS API V3.0.4 (tenant)',
      version: 'V3.0.4',
      description:
        'The operations of the Asset Administration Shell API (Specification of the Asset Administration Shell, Part 2, V3.0.4) that this ' +
        'tenant serves: the AAS Repository, Submodel Repository and Concept Description Repository (full profiles, SSP-001). Descriptions, ' +
        'parameters and schemas are those of the official OpenAPI files of the Industrial Digital Twin Association (IDTA), CC BY 4.0 ' +
        '(https://creativecommons.org/licenses/by/4.0/), bundled into this document. Where the specification leaves a choice open, the ' +
        "server's README documents it. Tenants in showcase mode need no token.",
      license: { name: 'CC BY 4.0 (the AAS API descriptions)', url: 'https://creativecommons.org/licenses/by/4.0/' },
    },
    servers: [{ url: '/api/v3.0' }],
    security: SECURITY,
    paths,
    components,
  };
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
