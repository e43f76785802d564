import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { DataSource, EntityManager } from 'typeorm';
import { badRequest, conflict } from '../../graphql/errors';
import { AasxError } from '../aasx';
import { readPackageEnvironment } from './aasx-import';
import { type UploadedFileInfo, headOf, readEnvironmentFile, uploadFormat } from './upload-format';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { ConceptDescriptionService } from '../concept-descriptions/concept-description.service';
import { fileElements, fileElementsAt } from '../model/file-elements';
import type { DocumentKind, JsonObject } from '../model/parse';
import { type DroppedPart, UnreadableDocument } from '../model/tolerant-read';
import { verifyTolerantly } from '../model/verify-document';
import { type AasVersion, mapDownToV30 } from '../versions';
import { isObject } from '../versions/needed';
import { filesReferencedBy, filesStillReferenced } from '../store/file-references';
import { childList } from '../submodels/element-tree';
import { ImportProgress, type ImportStatus, type WatchedImport, WatchedImports } from './import-progress';
import { type ImportWarning, type WarningKind, countWarnings, warningLines } from './import-warnings';
import { isExternal, partName } from './part-name';
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
  /** Removes a file stored by an import that then failed, or deleted by one (for stores outside the database). */
  discard(tenant: TenantEntity, tfp: string): Promise<void>;
  /** Deletes the files these tfps name in the import's transaction; returns those it deleted. */
  deleteInTransaction(tenant: TenantEntity, tfps: string[], manager: EntityManager): Promise<string[]>;
}

export interface ImportOptions {
  /** The package's files, by part name: File values and thumbnails naming one are stored and rewritten. */
  files?: { get(path: string): PackageFile | undefined };
  /** AASX packages hold exactly one shell (400 otherwise). */
  exactlyOneShell?: boolean;
  /** Warnings found before (reading the package; a bare text is of kind `package`); the import adds its own. */
  warnings?: (string | ImportWarning)[];
  /** What the environment was read from (the spec part `/aasx/data.json`, a file name): warnings start with it. */
  source?: string;
  /** Where the import logs its phases and progress (the request's logger); nothing is logged without one. */
  log?: Logger;
  /** Progress lines at most this often (ms; default PROGRESS_INTERVAL_MS). */
  progressMs?: number;
  /** Fires when the client has gone: the import stops at its next document and rolls back. */
  signal?: AbortSignal;
  /**
   * The version of the metamodel the environment is written in (its XML namespace): its documents are stored as
   * written and verified with that version's constraints. Undefined (JSON): each document is read as V3.1 where
   * V3.0 cannot read it as written (`Role`, an Entity without `entityType`, ...), else as V3.0.
   */
  version?: AasVersion;
}

/**
 * What `importPackage` takes: the logger, whether the package must hold exactly one shell (the default), and the
 * progress of an import its client watches (`watch`).
 */
export type PackageImportOptions = Pick<ImportOptions, 'log' | 'progressMs' | 'exactlyOneShell' | 'signal'> & { progress?: ImportProgress };

export interface ImportedItem {
  id: string;
  status: 'created' | 'updated';
}

/** What an import stored, in numbers, and its warnings by kind (every kind present). */
export interface ImportCounts {
  shells: number;
  submodels: number;
  conceptDescriptions: number;
  /** Submodel elements, at every depth. */
  elements: number;
  files: number;
  warnings: Record<WarningKind, number>;
}

export interface ImportResult {
  shells: ImportedItem[];
  submodels: ImportedItem[];
  conceptDescriptions: ImportedItem[];
  files: { path: string; tfp: string }[];
  /** Each text once (`(×n)` where it came n times), at most MAX_WARNINGS lines, then how many more. */
  warnings: string[];
  counts: ImportCounts;
}

const LISTS: [string, DocumentKind, string][] = [
  ['assetAdministrationShells', 'AssetAdministrationShell', 'shell'],
  ['submodels', 'Submodel', 'submodel'],
  ['conceptDescriptions', 'ConceptDescription', 'concept description'],
];

/**
 * Imports an environment (from an AASX package, or a JSON or XML document): every shell, submodel and concept
 * description is created or overwritten, and the package's supplementary files that File elements and asset
 * thumbnails name are stored in the file repository, their references rewritten to the new tfps. All of it is
 * one transaction: on any error nothing changes, files included.
 *
 * Packages from other tools often break constraints the metamodel's strict reading refuses (a missing English
 * definition, an idShort with a blank): those are warnings in the answer. A part that cannot be read as the
 * metamodel at all (a wrong type, a missing required attribute) is left out with a warning naming it
 * (`dropUnreadableParts`), and so is a concept description that cannot be read, or a document whose id an earlier
 * one of its list has; a shell or submodel that cannot be read without what it cannot do without (its id) is a 400
 * naming it.
 */
export class ImportService {
  /** The imports running here that their client watches. */
  private readonly watched = new WatchedImports();

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
  async importPackage(tenant: TenantEntity, packagePath: string, options: PackageImportOptions = {}): Promise<ImportResult> {
    const progress = options.progress ?? new ImportProgress(options.log, options.progressMs);
    progress.phase('reading the package', { tenant: tenant.name, bytes: (await fs.promises.stat(packagePath)).size });
    // The platform's own route (exactly one shell) holds a package to its rule: [Content_Types].xml paths match in case.
    const { pkg, environment, warnings, specPath, version } = await readPackageEnvironment(packagePath, { exactContentTypes: options.exactlyOneShell ?? true });
    const files = {
      get: (path: string): PackageFile | undefined => {
        const part = pkg.part(path);
        return part && { path: part.path, contentType: part.contentType, open: async () => part.stream() };
      },
    };
    try {
      const { exactlyOneShell = true, log, progressMs, signal } = options;
      return await this.importRead(tenant, environment, { log, progressMs, signal, files, exactlyOneShell, warnings, source: specPath, version }, progress);
    } catch (err) {
      // A file of the package that fails to inflate (a bomb, a bad CRC) is found while it is stored.
      if (err instanceof AasxError) throw badRequest(`Not a valid AASX package: ${err.message}`);
      throw err;
    }
  }

  /**
   * Watches an import its client is about to send under `key` (the tenant and an id the client drew), for `holder`
   * (who started it), from before its upload is received until `stop`: `watchedStatus` tells where it is. 409 when
   * an import running has the key.
   */
  watch(key: string, holder: string, options: Pick<ImportOptions, 'log' | 'progressMs'> = {}): WatchedImport {
    const watched = this.watched.watch(key, holder, new ImportProgress(options.log, options.progressMs));
    if (watched === 'taken') throw conflict('An import running on this tenant has this progress id already: draw a new one for each import.');
    return watched;
  }

  /** Where the import watched under `key` is, for `holder`, the caller that started it (else undefined). */
  watchedStatus(key: string, holder: string): ImportStatus | undefined {
    return this.watched.statusOf(key, holder);
  }

  /**
   * Imports an uploaded file (on disk) as the BaSyx AAS Environment's `/upload` does: an AASX package, or a JSON
   * or XML environment (uploadFormat tells which), with any number of shells. A plain environment has no package
   * files: its File values stay as they are.
   */
  async importUpload(tenant: TenantEntity, path: string, file: UploadedFileInfo, options: Pick<ImportOptions, 'log' | 'progressMs' | 'signal'> = {}): Promise<ImportResult> {
    const head = await headOf(path);
    const name = file.fileName || 'The file';
    if (head.length === 0) throw badRequest(`${name} is empty.`);
    const format = uploadFormat(file, head);
    if (format === undefined) {
      throw badRequest(`${name} is neither an AASX package nor a JSON or XML environment (by its content type '${file.contentType}', its name, or its first bytes).`);
    }
    if (format === 'aasx') return this.importPackage(tenant, path, { ...options, exactlyOneShell: false });
    const { environment, warnings, version } = await readEnvironmentFile(path, format, name);
    return this.importEnvironment(tenant, environment, { ...options, warnings: warnings.map((text): ImportWarning => ({ kind: 'version', text })), source: name, version });
  }

  async importEnvironment(tenant: TenantEntity, env: unknown, options: ImportOptions = {}): Promise<ImportResult> {
    return this.importRead(tenant, env, options, new ImportProgress(options.log, options.progressMs));
  }

  private async importRead(tenant: TenantEntity, env: unknown, options: ImportOptions, progress: ImportProgress): Promise<ImportResult> {
    if (env === null || typeof env !== 'object' || Array.isArray(env)) throw badRequest('The environment must be a JSON object.');
    const warnings: ImportWarning[] = (options.warnings ?? []).map((w) => (typeof w === 'string' ? { kind: 'package', text: w } : w));
    const source = options.source ? `${options.source} ` : '';
    for (const key of Object.keys(env)) {
      if (!LISTS.some(([list]) => list === key)) warnings.push({ kind: 'dropped', text: `${source}$.${key}: not part of an environment (left out)` });
    }
    for (const [list] of LISTS) {
      const items = (env as JsonObject)[list];
      if (items !== undefined && !Array.isArray(items)) throw badRequest(`$.${list} must be a list.`);
    }
    const sizes = Object.fromEntries(LISTS.map(([list]) => [list, ((env as JsonObject)[list] as unknown[] | undefined)?.length ?? 0]));
    const total = Object.values(sizes).reduce((sum, n) => sum + n, 0);
    progress.phase('read', { tenant: tenant.name, documents: sizes });

    const pace = new Pace(options.signal);
    let verifiedCount = 0;
    const docs = new Map<DocumentKind, JsonObject[]>();
    for (const [list, kind, what] of LISTS) {
      const items = ((env as JsonObject)[list] ?? []) as unknown[];
      const verified: JsonObject[] = [];
      // The first of two documents with one id is kept: where it is, for the warning about the later one.
      const seen = new Map<string, number>();
      const twice = (id: string, i: number) =>
        warnings.push({ kind: 'dropped', text: `${source}$.${list}[${i}]: dropped: the ${what} '${id}' (its id is the id of $.${list}[${seen.get(id)}], which is kept)` });
      for (const [i, item] of items.entries()) {
        await pace.step();
        progress.tick('reading documents', () => ({ read: verifiedCount, of: total }));
        verifiedCount++;
        const rawId = (item as JsonObject | null)?.id;
        if (typeof rawId === 'string' && seen.has(rawId)) {
          twice(rawId, i);
          continue;
        }
        const found: string[] = [];
        const dropped: DroppedPart[] = [];
        let doc: JsonObject;
        // A File with an empty value names no file: read as one without a value (the metamodel has no empty paths).
        for (const element of fileElements(item)) if (element.value === '') delete element.value;
        // Each walk of a large document holds the loop a while: other requests go between them.
        await pace.step();
        const version = options.version ?? (isObject(item) && mapDownToV30(item).mapped.length ? '3.1' : '3.0');
        await pace.step();
        try {
          doc = await verifyTolerantly(kind, item, found, dropped, version);
        } catch (err) {
          const reason = unreadable(err);
          if (kind !== 'ConceptDescription') {
            const message = at(`$.${list}[${i}]`, reason);
            throw badRequest(`The ${what}${quotedId(item)} at $.${list}[${i}] cannot be read: ${message}`, [message]);
          }
          warnings.push({ kind: 'dropped', text: `${source}$.${list}[${i}]: dropped: the ${what}${quotedId(item)} (${reason})` });
          continue;
        }
        const id = doc.id as string;
        if (seen.has(id)) {
          twice(id, i);
          continue;
        }
        seen.set(id, i);
        for (const part of dropped) warnings.push({ kind: 'dropped', text: `${source}$.${list}[${i}]${part.path.slice(1)}: dropped: ${part.what} (${part.why})` });
        for (const m of found) warnings.push({ kind: m.endsWith(' (left out)') ? 'dropped' : 'constraint', text: `${what} '${id}': ${m}` });
        // Stored as written; what V3.0 clients will read mapped, said once here.
        await pace.step();
        if (version === '3.1') for (const m of mapDownToV30(doc).mapped) warnings.push({ kind: 'version', text: `${what} '${id}' (AAS V3.1, stored as written), read through V3.0: ${m}` });
        verified.push(doc);
      }
      docs.set(kind, verified);
    }
    const shells = docs.get('AssetAdministrationShell') ?? [];
    const submodels = docs.get('Submodel') ?? [];
    const conceptDescriptions = docs.get('ConceptDescription') ?? [];
    if (options.exactlyOneShell && shells.length !== 1) {
      throw badRequest(`The package holds ${shells.length} shells; an AASX import takes exactly one.`);
    }
    const elements = submodels.reduce((sum, doc) => sum + elementCount(doc), 0);
    progress.phase('verified', {
      shells: shells.length,
      submodels: submodels.length,
      conceptDescriptions: conceptDescriptions.length,
      elements,
      warnings: countWarnings(warnings),
    });

    const stored: string[] = [];
    const removed: string[] = [];
    let result: Omit<ImportResult, 'warnings' | 'counts'>;
    try {
      result = await this.dataSource.transaction(async (manager) => {
        const fileWarnings: string[] = [];
        const files = await this.storeFiles(tenant, [...shells, ...submodels], options.files, manager, fileWarnings, stored);
        warnings.push(...fileWarnings.map((text): ImportWarning => ({ kind: 'file', text })));
        if (files.length) progress.phase('files stored', { files: files.length });
        const replaced = await filesReferencedBy(manager, tenant, { shells: idsOf(shells), submodels: idsOf(submodels) });
        let done = 0;
        let elementsDone = 0;
        // Written in batches (a few statements per few hundred documents or few thousand element rows), with the
        // import's pace between them: the loop stays free, and a client that has gone stops the import there.
        const put = async (kind: DocumentKind, service: Pick<ShellService, 'putMany'>) => {
          const list = docs.get(kind) ?? [];
          await pace.step();
          const statuses = await service.putMany(tenant, list, manager, async (written, elementsWritten) => {
            done += written;
            elementsDone += elementsWritten;
            progress.tick('storing', () => ({ stored: done, of: shells.length + submodels.length + conceptDescriptions.length, elements: elementsDone, elementsOf: elements }));
            await pace.step();
          });
          return list.map((doc, i): ImportedItem => ({ id: doc.id as string, status: statuses[i] }));
        };
        const imported = {
          shells: await put('AssetAdministrationShell', this.shells),
          submodels: await put('Submodel', this.submodels),
          conceptDescriptions: await put('ConceptDescription', this.conceptDescriptions),
          files,
        };
        removed.push(...(await this.removeReplacedFiles(tenant, replaced, manager)));
        return imported;
      });
    } catch (err) {
      // The database rolled back; a store outside it (S3) drops what this import put there.
      await Promise.all(stored.map((tfp) => this.fileSink.discard(tenant, tfp).catch(() => undefined)));
      throw err;
    }
    // Committed: a store outside the database drops the contents of the files the import deleted.
    await Promise.all(removed.map((tfp) => this.fileSink.discard(tenant, tfp).catch(() => undefined)));
    const counts: ImportCounts = {
      shells: result.shells.length,
      submodels: result.submodels.length,
      conceptDescriptions: result.conceptDescriptions.length,
      elements,
      files: result.files.length,
      warnings: countWarnings(warnings),
    };
    progress.phase('done', { counts });
    return { ...result, warnings: warningLines(warnings), counts };
  }

  /**
   * An import that overwrites replaces: of the files the overwritten shells and submodels referenced (`replaced`,
   * read before the writes), those that no stored shell or submodel of the tenant references now are deleted, in
   * the import's transaction. A file that other content (another submodel, the new documents) references stays.
   */
  private async removeReplacedFiles(tenant: TenantEntity, replaced: Map<string, string>, manager: EntityManager): Promise<string[]> {
    if (!replaced.size) return [];
    const referenced = await filesStillReferenced(manager, tenant.id, [...replaced.keys()]);
    const orphans = [...replaced].filter(([documentId]) => !referenced.has(documentId)).map(([, tfp]) => tfp);
    return orphans.length ? this.fileSink.deleteInTransaction(tenant, orphans, manager) : [];
  }

  /**
   * Stores each package file that a File element or an asset thumbnail names, once, and rewrites those values to
   * the new tfps (in place, in the verified documents). Every spelling of a part name resolves (`partName`). Values
   * that name no part stay as they are: links elsewhere (`isExternal`), or a part the package lacks (a warning
   * naming the File by its submodel and idShortPath).
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
      for (const { element, path } of fileElementsAt(doc)) {
        const tfp = await rewrite(element.value, `submodel '${String(doc.id)}' File '${path}'`);
        if (tfp) element.value = tfp;
      }
    }
    return [...tfps].map(([path, tfp]) => ({ path, tfp }));
  }
}

/**
 * The pace of a long loop: it stops as soon as its client has gone (`signal`), and lets other requests run (the
 * event loop) every few milliseconds of work, so that no import holds the process for long.
 */
class Pace {
  private since = performance.now();

  constructor(private readonly signal?: AbortSignal) {}

  async step(): Promise<void> {
    this.signal?.throwIfAborted();
    if (performance.now() - this.since < YIELD_AFTER_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.since = performance.now();
    this.signal?.throwIfAborted();
  }
}

/** How long an import works before it lets other requests run. */
const YIELD_AFTER_MS = 20;

const idsOf = (docs: JsonObject[] | undefined) => (docs ?? []).map((doc) => doc.id as string);

/** Why a document cannot be read, relative to it (`.id: Expected a string`), or as the reader said it. */
function unreadable(err: unknown): string {
  if (err instanceof UnreadableDocument) return err.reason;
  const e = err as { message?: string; extensions?: { messages?: string[] } };
  return e.extensions?.messages?.[0] ?? e.message ?? 'unreadable';
}

/** `at` followed by a reason relative to it: `$.submodels[2].id: ...`, or `$.submodels[2]: ...`. */
const at = (path: string, reason: string) => (/^[.[]/.test(reason) ? `${path}${reason}` : `${path}: ${reason}`);

/** ` 'id'` of a document whose id is a string, for messages. */
function quotedId(item: unknown): string {
  const id = (item as JsonObject | null)?.id;
  return typeof id === 'string' ? ` '${id}'` : '';
}

/** The submodel elements of a submodel, at every depth (its element rows). */
function elementCount(doc: JsonObject): number {
  let count = 0;
  const stack: JsonObject[] = [...((doc.submodelElements ?? []) as JsonObject[])];
  while (stack.length) {
    count++;
    for (const child of childList(stack.pop()!)) stack.push(child);
  }
  return count;
}
