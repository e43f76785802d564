import type { Readable } from 'node:stream';
import { withReadBudget } from '../../db/read-budget';
import { notFound } from '../../graphql/errors';
import { MAX_ID_LENGTH } from '../../graphql/limits';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { ConceptDescriptionService } from '../concept-descriptions/concept-description.service';
import type { JsonObject } from '../model/parse';
import type { ShellService } from '../shells/shell.service';
import type { SubmodelService } from '../submodels/submodel.service';
import type { AasVersion } from '../versions';
import { writeXmlEnvironmentChunks } from '../xml/writer';
import type { EnvironmentParts } from './environment-parts';
import { FileSource, SpecWriter, aasxPackage } from './package';
import { withoutEmpties } from './without-empties';

export interface SerializationRequest {
  /** Shell ids; with `submodelIds` both empty, the whole tenant. */
  aasIds: string[];
  submodelIds: string[];
  includeConceptDescriptions: boolean;
  /**
   * With ids: every concept description of the tenant, not only those the shells and submodels reference (moving
   * a tenant's content whole). Without ids every one is included anyway.
   */
  allConceptDescriptions?: boolean;
}

/** Rows fetched per read when the whole tenant is streamed; each read has a read budget of its own. */
const PAGE = 50;
/** How many ids one `findMany` reads at once. */
const BATCH = 100;
/** How deep concept descriptions are followed through IEC 61360 value lists. */
const MAX_CD_DEPTH = 8;

/**
 * What `GET /serialization` puts into an environment (AAS Part 2, "Serialization"):
 * - with ids: exactly those shells and submodels (404 naming the ids that are not there), and the concept
 *   descriptions the included shells and submodels reference (any reference key that names a concept description
 *   of the tenant: semanticIds, supplemental semanticIds, qualifiers, ...), followed further through the value
 *   lists (IEC 61360 `valueReferencePairs[].valueId`) of the concept descriptions found; with
 *   `allConceptDescriptions`, every concept description of the tenant instead;
 * - without ids: the whole tenant, every concept description included, read page by page as it is written.
 */
export class SerializationService {
  constructor(
    private readonly shells: ShellService,
    private readonly submodels: SubmodelService,
    private readonly conceptDescriptions: ConceptDescriptionService,
    private readonly files: FileSource,
    private readonly readLimitBytes: number,
  ) {}

  /**
   * The environment as JSON or XML text, or as an AASX package with that spec part, a chunk at a time, in metamodel
   * `version`: for V3.0 the documents that need V3.1 mapped down and V3.0 XML, for V3.1 as stored and V3.1 XML.
   */
  async serialize(tenant: TenantEntity, request: SerializationRequest, format: 'json' | 'xml', aasx: boolean, version: AasVersion = '3.0'): Promise<AsyncIterable<string | Buffer>> {
    const writeSpec = specWriter(format, version);
    if (aasx) return this.package(tenant, request, format, writeSpec, version);
    return writeSpec(await this.parts(tenant, request, version));
  }

  /** The environment as an AASX package (streamed), the spec part written by `writeSpec` (see package.ts). */
  async package(tenant: TenantEntity, request: SerializationRequest, format: 'json' | 'xml', writeSpec: SpecWriter, version: AasVersion = '3.0'): Promise<Readable> {
    if (isWholeTenant(request) || request.allConceptDescriptions) return aasxPackage(tenant, () => this.parts(tenant, request, version), this.files, format, writeSpec);
    // Read once (404 for missing ids before anything is written); the package passes over the lists twice.
    const lists = await this.lists(tenant, request, version);
    return aasxPackage(tenant, async () => partsOf(lists), this.files, format, writeSpec);
  }

  /** The documents of the request, as a reader of metamodel `version` sees them. */
  async parts(tenant: TenantEntity, request: SerializationRequest, version: AasVersion = '3.0'): Promise<EnvironmentParts> {
    const empty = (async function* () {})();
    if (!isWholeTenant(request) && request.includeConceptDescriptions && request.allConceptDescriptions) {
      const lists = await this.lists(tenant, { ...request, includeConceptDescriptions: false }, version);
      return { ...partsOf(lists), conceptDescriptions: this.all((cursor) => this.conceptDescriptions.list(tenant, {}, PAGE, cursor, version)) };
    }
    if (isWholeTenant(request)) {
      return {
        assetAdministrationShells: this.all((cursor) => this.shells.list(tenant, {}, PAGE, cursor, version)),
        submodels: this.all((cursor) => this.submodels.list(tenant, {}, PAGE, cursor, version)),
        conceptDescriptions: request.includeConceptDescriptions ? this.all((cursor) => this.conceptDescriptions.list(tenant, {}, PAGE, cursor, version)) : empty,
      };
    }
    return partsOf(await this.lists(tenant, request, version));
  }

  /** The documents of explicit ids, in memory (the ids fit into a URL). */
  private async lists(tenant: TenantEntity, request: SerializationRequest, version: AasVersion): Promise<Lists> {
    const shells = await this.exactly(tenant, 'shell', request.aasIds, (ids) => this.shells.findMany(tenant, ids, version));
    const submodels = await this.exactly(tenant, 'submodel', request.submodelIds, (ids) => this.submodels.findMany(tenant, ids, version));
    const conceptDescriptions = request.includeConceptDescriptions ? await this.referencedConceptDescriptions(tenant, [...shells, ...submodels], version) : [];
    return { shells, submodels, conceptDescriptions };
  }

  /** Every item of a paged list, page by page, each page read under a read budget of its own. */
  private async *all(page: (cursor: string | null) => Promise<{ items: JsonObject[]; cursor?: string | null }>): AsyncIterable<JsonObject> {
    let cursor: string | null = null;
    do {
      const current: { items: JsonObject[]; cursor?: string | null } = await withReadBudget(this.readLimitBytes, () => page(cursor));
      yield* current.items;
      cursor = current.cursor ?? null;
    } while (cursor);
  }

  /** The documents of these ids, in the order asked (duplicates once); 404 naming the missing ones. */
  private async exactly(
    _tenant: TenantEntity,
    what: string,
    ids: string[],
    find: (ids: string[]) => Promise<Map<string, JsonObject>>,
  ): Promise<JsonObject[]> {
    const unique = [...new Set(ids)];
    const found = new Map<string, JsonObject>();
    for (let i = 0; i < unique.length; i += BATCH) for (const [id, doc] of await find(unique.slice(i, i + BATCH))) found.set(id, doc);
    const missing = unique.filter((id) => !found.has(id));
    if (missing.length) throw notFound(`No ${what} with the id${missing.length > 1 ? 's' : ''} ${missing.map((id) => `'${id}'`).join(', ')} in this tenant.`);
    return unique.map((id) => found.get(id)!);
  }

  private async referencedConceptDescriptions(tenant: TenantEntity, documents: JsonObject[], version: AasVersion): Promise<JsonObject[]> {
    const found = new Map<string, JsonObject>();
    let wanted = new Set<string>();
    for (const document of documents) referenceKeyValues(document, wanted);
    for (let depth = 0; depth < MAX_CD_DEPTH && wanted.size > 0; depth++) {
      const ids = [...wanted].filter((id) => !found.has(id));
      const next = new Set<string>();
      for (let i = 0; i < ids.length; i += BATCH) {
        for (const [id, doc] of await this.conceptDescriptions.findMany(tenant, ids.slice(i, i + BATCH), version)) {
          found.set(id, doc);
          valueListIds(doc, next);
        }
      }
      wanted = next;
    }
    return [...found.values()];
  }
}

async function* iterate(items: JsonObject[]): AsyncIterable<JsonObject> {
  yield* items;
}

interface Lists {
  shells: JsonObject[];
  submodels: JsonObject[];
  conceptDescriptions: JsonObject[];
}

const partsOf = (lists: Lists): EnvironmentParts => ({
  assetAdministrationShells: iterate(lists.shells),
  submodels: iterate(lists.submodels),
  conceptDescriptions: iterate(lists.conceptDescriptions),
});

/**
 * The spec part writer of a format and metamodel version: it writes the documents without the empty values the
 * schemas forbid; XML in the version's namespace (JSON has none).
 */
export function specWriter(format: 'json' | 'xml', version: AasVersion = '3.0'): SpecWriter {
  return format === 'json' ? (parts) => environmentJson(schemaConforming(parts)) : (parts) => writeXmlEnvironmentChunks(schemaConforming(parts), { version });
}

/** The parts with every document as `withoutEmpties` writes it. */
function schemaConforming(parts: EnvironmentParts): EnvironmentParts {
  return {
    assetAdministrationShells: mapItems(parts.assetAdministrationShells, (shell) => withoutEmpties('assetAdministrationShell', shell)),
    submodels: mapItems(parts.submodels, (submodel) => withoutEmpties('submodel', submodel)),
    conceptDescriptions: mapItems(parts.conceptDescriptions, (cd) => withoutEmpties('conceptDescription', cd)),
  };
}

async function* mapItems(items: AsyncIterable<JsonObject>, map: (item: JsonObject) => JsonObject): AsyncIterable<JsonObject> {
  for await (const item of items) yield map(item);
}

const isWholeTenant = (request: SerializationRequest) => request.aasIds.length === 0 && request.submodelIds.length === 0;

/** Every key value of every Reference in a document (objects with a `keys` list) that can be an identifier. */
function referenceKeyValues(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) referenceKeyValues(item, into);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as JsonObject;
  if (Array.isArray(object.keys)) {
    for (const key of object.keys as { value?: unknown }[]) if (typeof key?.value === 'string' && key.value.length <= MAX_ID_LENGTH) into.add(key.value);
  }
  for (const [name, child] of Object.entries(object)) if (name !== 'keys') referenceKeyValues(child, into);
}

/** The concept descriptions an IEC 61360 value list points at (`valueReferencePairs[].valueId`). */
function valueListIds(conceptDescription: JsonObject, into: Set<string>): void {
  for (const spec of (conceptDescription.embeddedDataSpecifications as JsonObject[] | undefined) ?? []) {
    const content = spec.dataSpecificationContent as JsonObject | undefined;
    const pairs = (content?.valueList as JsonObject | undefined)?.valueReferencePairs as JsonObject[] | undefined;
    for (const pair of pairs ?? []) referenceKeyValues(pair.valueId, into);
  }
}

/**
 * The environment as JSON text, piece by piece: each list is written as its items arrive, and a list without
 * items is left out (the AAS JSON schema has no empty lists).
 */
export async function* environmentJson(parts: EnvironmentParts): AsyncIterable<string> {
  let first = true;
  for (const key of ['assetAdministrationShells', 'submodels', 'conceptDescriptions'] as const) {
    let opened = false;
    for await (const item of parts[key]) {
      yield `${opened ? ',' : `${first ? '{' : ','}${JSON.stringify(key)}:[`}${JSON.stringify(item)}`;
      opened = true;
      first = false;
    }
    if (opened) yield ']';
  }
  yield first ? '{}' : '}';
}
