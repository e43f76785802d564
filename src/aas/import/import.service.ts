import type { Readable } from 'node:stream';
import { DataSource, EntityManager } from 'typeorm';
import { badRequest } from '../../graphql/errors';
import { AasxError } from '../aasx';
import { readPackageEnvironment } from './aasx-import';
import { type UploadedFileInfo, headOf, readEnvironmentFile, uploadFormat } from './upload-format';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { ConceptDescriptionService } from '../concept-descriptions/concept-description.service';
import { fileElements } from '../model/file-elements';
import type { DocumentKind, JsonObject } from '../model/parse';
import { verifyDocument } from '../model/verify-document';
import type { ShellService } from '../shells/shell.service';
import type { SubmodelService } from '../submodels/submodel.service';

/** A supplementary file of a package, by its part name (`/aasx/files/manual.pdf`). */
export interface PackageFile {
  path: string;
  contentType: string;
  open(): Promise<Readable>;
}

/** Where imported files go: the tenant's file repository, inside the import's transaction where it can. */
export interface FileSink {
  store(tenant: TenantEntity, file: { fileName: string; contentType: string; stream: Readable }, manager: EntityManager): Promise<{ tfp: string }>;
  /** Removes a file stored by an import that then failed (for stores outside the database). */
  discard(tenant: TenantEntity, tfp: string): Promise<void>;
}

export interface ImportOptions {
  /** The package's files, by part name: File values and thumbnails naming one are stored and rewritten. */
  files?: { get(path: string): PackageFile | undefined };
  /** AASX packages hold exactly one shell (400 otherwise). */
  exactlyOneShell?: boolean;
  /** Warnings found before (reading the package); the import adds its own. */
  warnings?: string[];
}

export interface ImportedItem {
  id: string;
  status: 'created' | 'updated';
}

export interface ImportResult {
  shells: ImportedItem[];
  submodels: ImportedItem[];
  conceptDescriptions: ImportedItem[];
  files: { path: string; tfp: string }[];
  warnings: string[];
}

const LISTS: [string, DocumentKind, string][] = [
  ['assetAdministrationShells', 'AssetAdministrationShell', 'shell'],
  ['submodels', 'Submodel', 'submodel'],
  ['conceptDescriptions', 'ConceptDescription', 'concept description'],
];

/** At most this many warnings are returned; the rest are counted. */
const MAX_WARNINGS = 200;

/**
 * Imports an environment (from an AASX package, or a JSON or XML document): every shell, submodel and concept
 * description is created or overwritten, and the package's supplementary files that File elements and asset
 * thumbnails name are stored in the file repository, their references rewritten to the new tfps. All of it is
 * one transaction: on any error nothing changes, files included.
 *
 * Packages from other tools often break constraints the metamodel's strict reading refuses (a missing English
 * definition, an idShort with a blank): those are warnings in the answer. What cannot be read as the metamodel
 * at all (a wrong type, a missing required attribute) is a 400 naming it.
 */
export class ImportService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly shells: ShellService,
    private readonly submodels: SubmodelService,
    private readonly conceptDescriptions: ConceptDescriptionService,
    private readonly fileSink: FileSink,
  ) {}

  /**
   * Imports an AASX package, a file on disk: its environment (readPackageEnvironment) with the package's files
   * (one transaction; exactly one shell unless `exactlyOneShell` is false). A supplementary file the spec part
   * declares but the package lacks is a warning: the documents are stored, and a File naming it keeps its value.
   */
  async importPackage(tenant: TenantEntity, packagePath: string, { exactlyOneShell = true }: { exactlyOneShell?: boolean } = {}): Promise<ImportResult> {
    const { pkg, environment, warnings } = await readPackageEnvironment(packagePath);
    const files = {
      get: (path: string): PackageFile | undefined => {
        const part = pkg.part(path);
        return part && { path: part.path, contentType: part.contentType, open: async () => part.stream() };
      },
    };
    try {
      return await this.importEnvironment(tenant, environment, { files, exactlyOneShell, warnings });
    } catch (err) {
      // A file of the package that fails to inflate (a bomb, a bad CRC) is found while it is stored.
      if (err instanceof AasxError) throw badRequest(`Not a valid AASX package: ${err.message}`);
      throw err;
    }
  }

  /**
   * Imports an uploaded file (on disk) as the BaSyx AAS Environment's `/upload` does: an AASX package, or a JSON
   * or XML environment (uploadFormat tells which), with any number of shells. A plain environment has no package
   * files: its File values stay as they are.
   */
  async importUpload(tenant: TenantEntity, path: string, file: UploadedFileInfo): Promise<ImportResult> {
    const head = await headOf(path);
    const name = file.fileName || 'The file';
    if (head.length === 0) throw badRequest(`${name} is empty.`);
    const format = uploadFormat(file, head);
    if (format === undefined) {
      throw badRequest(`${name} is neither an AASX package nor a JSON or XML environment (by its content type '${file.contentType}', its name, or its first bytes).`);
    }
    if (format === 'aasx') return this.importPackage(tenant, path, { exactlyOneShell: false });
    const { environment, warnings } = await readEnvironmentFile(path, format, name);
    return this.importEnvironment(tenant, environment, { warnings });
  }

  async importEnvironment(tenant: TenantEntity, env: unknown, options: ImportOptions = {}): Promise<ImportResult> {
    if (env === null || typeof env !== 'object' || Array.isArray(env)) throw badRequest('The environment must be a JSON object.');
    const warnings = [...(options.warnings ?? [])];
    for (const key of Object.keys(env)) {
      if (!LISTS.some(([list]) => list === key)) warnings.push(`$.${key}: not part of an environment (left out)`);
    }
    const docs = new Map<DocumentKind, JsonObject[]>();
    for (const [list, kind, what] of LISTS) {
      const items = (env as JsonObject)[list];
      if (items === undefined) continue;
      if (!Array.isArray(items)) throw badRequest(`$.${list} must be a list.`);
      const verified: JsonObject[] = [];
      const seen = new Set<string>();
      for (const [i, item] of items.entries()) {
        const found: string[] = [];
        let doc: JsonObject;
        // A File with an empty value names no file: read as one without a value (the metamodel has no empty paths).
        for (const element of fileElements(item)) if (element.value === '') delete element.value;
        try {
          doc = await verifyDocument(kind, item, found);
        } catch (err) {
          const e = err as { message?: string; extensions?: { messages?: string[] } };
          const messages = (e.extensions?.messages ?? [e.message ?? 'unreadable']).map((m) => `$.${list}[${i}]: ${m}`);
          throw badRequest(`The ${what} at $.${list}[${i}] cannot be read: ${messages[0]}`, messages);
        }
        const id = doc.id as string;
        if (seen.has(id)) throw badRequest(`$.${list}[${i}]: the ${what} id '${id}' appears twice.`);
        seen.add(id);
        warnings.push(...found.map((m) => `${what} '${id}': ${m}`));
        verified.push(doc);
      }
      docs.set(kind, verified);
    }
    const shells = docs.get('AssetAdministrationShell') ?? [];
    if (options.exactlyOneShell && shells.length !== 1) {
      throw badRequest(`The package holds ${shells.length} shells; an AASX import takes exactly one.`);
    }

    const stored: string[] = [];
    try {
      return await this.dataSource.transaction(async (manager) => {
        const files = await this.storeFiles(tenant, [...(docs.get('AssetAdministrationShell') ?? []), ...(docs.get('Submodel') ?? [])], options.files, manager, warnings, stored);
        const put = async (kind: DocumentKind, service: { put(t: TenantEntity, d: JsonObject, o: { manager: EntityManager }): Promise<'created' | 'updated'> }) => {
          const out: ImportedItem[] = [];
          for (const doc of docs.get(kind) ?? []) out.push({ id: doc.id as string, status: await service.put(tenant, doc, { manager }) });
          return out;
        };
        return {
          shells: await put('AssetAdministrationShell', this.shells),
          submodels: await put('Submodel', this.submodels),
          conceptDescriptions: await put('ConceptDescription', this.conceptDescriptions),
          files,
          warnings: capped(warnings),
        };
      });
    } catch (err) {
      // The database rolled back; a store outside it (S3) drops what this import put there.
      await Promise.all(stored.map((tfp) => this.fileSink.discard(tenant, tfp).catch(() => undefined)));
      throw err;
    }
  }

  /**
   * Stores each package file that a File element or an asset thumbnail names, once, and rewrites those values to
   * the new tfps (in place, in the verified documents). Values that name no part stay as they are: links
   * elsewhere, or a part the package lacks (a warning).
   */
  private async storeFiles(
    tenant: TenantEntity,
    docs: JsonObject[],
    files: ImportOptions['files'],
    manager: EntityManager,
    warnings: string[],
    stored: string[],
  ): Promise<{ path: string; tfp: string }[]> {
    const tfps = new Map<string, string>();
    const rewrite = async (value: unknown, where: string): Promise<string | undefined> => {
      if (typeof value !== 'string' || value === '' || isExternal(value)) return undefined;
      const part = partName(value);
      const file = part !== undefined ? files?.get(part) : undefined;
      if (!file) {
        warnings.push(`${where}: '${value}' is no file of the package (kept as it is)`);
        return undefined;
      }
      let tfp = tfps.get(file.path);
      if (!tfp) {
        const fileName = file.path.slice(file.path.lastIndexOf('/') + 1) || 'file';
        tfp = (await this.fileSink.store(tenant, { fileName, contentType: file.contentType, stream: await file.open() }, manager)).tfp;
        stored.push(tfp);
        tfps.set(file.path, tfp);
      }
      return tfp;
    };
    for (const doc of docs) {
      const thumbnail = (doc.assetInformation as JsonObject | undefined)?.defaultThumbnail as JsonObject | undefined;
      if (thumbnail) {
        const tfp = await rewrite(thumbnail.path, `shell '${String(doc.id)}' thumbnail`);
        if (tfp) thumbnail.path = tfp;
      }
      for (const element of fileElements(doc)) {
        const name = typeof element.idShort === 'string' ? `File '${element.idShort}'` : 'a File in a list';
        const tfp = await rewrite(element.value, `submodel '${String(doc.id)}' ${name}`);
        if (tfp) element.value = tfp;
      }
    }
    return [...tfps].map(([path, tfp]) => ({ path, tfp }));
  }
}


/** A link elsewhere (`https:`, `urn:`, a tfp `file:` of this server) is not a part of the package. */
const isExternal = (value: string) => /^[A-Za-z][A-Za-z0-9+.-]*:/.test(value) && !/^file:\/\/\/?aasx\//i.test(value);

/** The part name a File value names: absolute, `/`-separated, decoded; undefined when it cannot be one. */
export function partName(value: string): string | undefined {
  let path = value.replace(/^file:\/\//i, '').replace(/\\/g, '/');
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  if (!path.startsWith('/')) path = `/${path}`;
  if (path.split('/').some((segment) => segment === '..' || segment === '.')) return undefined;
  return path;
}

function capped(warnings: string[]): string[] {
  if (warnings.length <= MAX_WARNINGS) return warnings;
  return [...warnings.slice(0, MAX_WARNINGS), `... and ${warnings.length - MAX_WARNINGS} more warnings`];
}
