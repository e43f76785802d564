import { createHash, randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { DataSource, EntityManager, IsNull } from 'typeorm';
import { leftChars, likeContains, likePrefix } from '../aas/query/text-match';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../common/cursor';
import { badRequest, notFound } from '../graphql/errors';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import type { BlobKey, BlobStore, ByteRange } from './blob-store';
import { FileEntity } from './file.entity';
import { FileAttribute, FileMetadata, checkFileFilter, checkMetadata } from './metadata';
import { ParsedTfp, cleanFileName, formatTfp, parseTfp } from './tfp';

/** A stored file, as the service hands it out. */
export interface FileRecord {
  tfp: string;
  fileName: string;
  contentType: string;
  size: number;
  /** SHA-256 of the content, lower-case hex. */
  sha256: string;
  /** Strong entity tag of the content (SHA-256 based): equal contents, equal tags. */
  etag: string;
  displayName: string | null;
  /** A VDI 2770 class id. */
  classification: string | null;
  attributes: FileAttribute[];
  createdAt: Date;
  updatedAt: Date;
}

/** What is stored: a name, a media type and the bytes, streamed; metadata may arrive after the bytes. */
export interface FileInput {
  fileName: string;
  contentType: string;
  stream: Readable | AsyncIterable<Buffer | string>;
  metadata?: FileMetadata | Promise<FileMetadata>;
  /** The module that holds the file (see `FileEntity.heldBy`); absent for a file of the repository itself. */
  heldBy?: FileHolder;
}

/** Modules that hold files of the repository which only they may read, change or remove. */
export type FileHolder = 'aasx-package';

/** Files matching every field given (null or absent: any). */
export interface FileFilter {
  displayName?: string | null;
  /** Text matches of the displayName as for shells (aas/query/text-match: case-sensitive, wildcards literal). */
  displayNameStartsWith?: string | null;
  displayNameContains?: string | null;
  classification?: string | null;
  /** A media type (`application/pdf`), or a whole type (`image/*`). */
  contentType?: string | null;
  fileName?: string | null;
  /** Attributes the file must carry, each with exactly this value. */
  attributes?: FileAttribute[] | null;
}

interface StoredRow {
  entity: FileEntity;
  tenant: TenantEntity;
}

const CURSOR_LIST = 'files';
/** How many leading characters of a displayName the prefix index holds (migration FilterQueries). */
const DISPLAY_NAME_PREFIX_INDEXED = 256;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/;

/**
 * The tenant file repository: stores, replaces, reads and deletes files named by their tfp, and their metadata.
 * The one writer of `files` and `file_chunks`. Contents stream to and from the blob store, never whole in memory.
 *
 * For other modules (AASX import and export, thumbnails): `store` (which joins an outer transaction when given its
 * manager; with an object store, `discard` removes what a rolled-back import wrote), `open`, `find`, `parseTfp`,
 * `delete`.
 */
export class FileService {
  constructor(
    private readonly dataSource: DataSource,
    readonly blobs: BlobStore,
    private readonly log?: Logger,
  ) {}

  /** The parts of a tfp of this tenant: 400 when `value` is no tfp, 404 when it is another tenant's. */
  parseTfp(tenant: TenantEntity, value: string): ParsedTfp {
    const parsed = parseTfp(value);
    if (!parsed) throw badRequest(`'${value}' is not a service file path (file:/sphere/{tenant}/{documentId}/{fileName}).`);
    if (parsed.tenant !== tenant.name) throw fileNotFound(value);
    return parsed;
  }

  /** Stores a new file; in `manager`'s transaction when given (the database blob store writes there too). */
  async store(tenant: TenantEntity, input: FileInput, manager?: EntityManager): Promise<FileRecord> {
    const fileName = cleanFileName(input.fileName);
    const contentType = cleanContentType(input.contentType);
    const entity: Partial<FileEntity> = {
      id: randomUUID(),
      tenantId: tenant.id,
      documentId: randomUUID(),
      fileName,
      contentType,
      store: this.blobs.kind,
      contentId: randomUUID(),
      chunkSize: this.blobs.chunkSize,
      metadata: {},
      heldBy: input.heldBy ?? null,
    };
    const key = keyOf(entity as FileEntity);
    const content = measured(input.stream);
    if (this.blobs.inDatabase) {
      const write = async (m: EntityManager) => {
        await m.insert(FileEntity, { ...entity, size: '0', sha256: '' });
        await this.blobs.write(m, key, content.chunks, contentType);
        const metadata = checkMetadata((await input.metadata) ?? {});
        await m.update(FileEntity, { tenantId: tenant.id, id: entity.id }, { size: String(content.size), sha256: content.sha256(), metadata });
        return m.findOneByOrFail(FileEntity, { tenantId: tenant.id, id: entity.id });
      };
      const stored = manager ? await write(manager) : await this.dataSource.transaction(write);
      return toRecord(stored, tenant);
    }
    await this.blobs.write(this.dataSource.manager, key, content.chunks, contentType);
    try {
      const metadata = checkMetadata((await input.metadata) ?? {});
      const m = manager ?? this.dataSource.manager;
      await m.insert(FileEntity, { ...entity, size: String(content.size), sha256: content.sha256(), metadata });
      return toRecord(await m.findOneByOrFail(FileEntity, { tenantId: tenant.id, id: entity.id }), tenant);
    } catch (err) {
      await this.blobs.remove(this.dataSource.manager, key).catch((e) => this.log?.warn({ err: e, key }, 'could not remove the content of a file that was not stored'));
      throw err;
    }
  }

  /** Replaces a file's content, keeping its name and tfp; the old content stays readable until the new one is complete. */
  async replace(tenant: TenantEntity, tfp: string, input: Omit<FileInput, 'fileName' | 'metadata'> & { ready?: Promise<unknown> }): Promise<FileRecord> {
    const { entity: current } = await this.row(tenant, tfp);
    const contentType = cleanContentType(input.contentType);
    const key = { ...keyOf(current), contentId: randomUUID() };
    const content = measured(input.stream);
    const commit = async (m: EntityManager) => {
      const locked = await m.findOne(FileEntity, { where: { tenantId: tenant.id, id: current.id }, lock: { mode: 'pessimistic_write' } });
      if (!locked) throw fileNotFound(tfp);
      await m.update(
        FileEntity,
        { tenantId: tenant.id, id: current.id },
        { contentId: key.contentId, size: String(content.size), sha256: content.sha256(), contentType, chunkSize: this.blobs.chunkSize, store: this.blobs.kind, version: locked.version + 1 },
      );
      return locked;
    };
    if (this.blobs.inDatabase) {
      const updated = await this.dataSource
        .transaction(async (m) => {
          await this.blobs.write(m, key, content.chunks, contentType);
          await input.ready;
          const old = await commit(m);
          await this.blobs.remove(m, keyOf(old));
          return m.findOneByOrFail(FileEntity, { tenantId: tenant.id, id: current.id });
        })
        .catch((err) => {
          // The row went away while the new content was written (a delete won the race).
          throw (err as { code?: string }).code === '23503' ? fileNotFound(tfp) : err;
        });
      return toRecord(updated, tenant);
    }
    await this.blobs.write(this.dataSource.manager, key, content.chunks, contentType);
    let old: FileEntity;
    try {
      await input.ready;
      old = await this.dataSource.transaction(commit);
    } catch (err) {
      await this.blobs.remove(this.dataSource.manager, key).catch((e) => this.log?.warn({ err: e, key }, 'could not remove the content of a failed replace'));
      throw err;
    }
    await this.blobs.remove(this.dataSource.manager, keyOf(old)).catch((e) => this.log?.warn({ err: e, key: keyOf(old) }, 'could not remove a replaced file content'));
    return this.get(tenant, tfp);
  }

  /** The file `tfp` names (404 when there is none in this tenant). */
  async get(tenant: TenantEntity, tfp: string): Promise<FileRecord> {
    return toRecord((await this.row(tenant, tfp)).entity, tenant);
  }

  /** The file and its content (or a range of it), streamed. */
  async open(tenant: TenantEntity, tfp: string, range?: ByteRange, holder?: FileHolder): Promise<{ record: FileRecord; stream: Readable }> {
    const { entity } = await this.row(tenant, tfp, holder);
    const size = Number(entity.size);
    const stream = await this.blobs.read(keyOf(entity), size, entity.chunkSize, range);
    return { record: toRecord(entity, tenant), stream };
  }

  /**
   * The file a value (a File element's value, a thumbnail path) names, with a way to open it; undefined when the
   * value is no tfp of this tenant or its file is gone. (The AASX export's file source.)
   */
  async find(tenant: TenantEntity, value: string): Promise<(FileRecord & { open(): Promise<Readable> }) | undefined> {
    const parsed = parseTfp(value);
    if (!parsed || parsed.tenant !== tenant.name) return undefined;
    const entity = await this.dataSource.manager.findOneBy(FileEntity, { tenantId: tenant.id, documentId: parsed.documentId, heldBy: IsNull() });
    if (!entity || entity.fileName !== parsed.fileName) return undefined;
    return { ...toRecord(entity, tenant), open: async () => (await this.open(tenant, value)).stream };
  }

  async updateMetadata(tenant: TenantEntity, tfp: string, input: FileMetadata): Promise<FileRecord> {
    const metadata = checkMetadata(input);
    const { entity } = await this.row(tenant, tfp);
    const result = await this.dataSource.manager
      .createQueryBuilder()
      .update(FileEntity)
      .set({ metadata, version: () => 'version + 1' })
      .where('tenant_id = :tenant AND id = :id', { tenant: tenant.id, id: entity.id })
      .execute();
    if (!result.affected) throw fileNotFound(tfp);
    return this.get(tenant, tfp);
  }

  /** Deletes the file and its content for good; references to it are not checked (platform spec). */
  async delete(tenant: TenantEntity, tfp: string, holder?: FileHolder): Promise<void> {
    const { entity } = await this.row(tenant, tfp, holder);
    const result = await this.dataSource.manager.delete(FileEntity, { tenantId: tenant.id, id: entity.id });
    if (!result.affected) throw fileNotFound(tfp);
    await this.blobs.removeDocument(tenant.id, entity.documentId).catch((err) => this.log?.warn({ err, tfp }, 'could not remove the content of a deleted file'));
  }

  /**
   * Deletes the files of the repository these tfps name, in `manager`'s transaction (an import that replaced what
   * referenced them); tfps of no such file are passed over. Returns the tfps deleted: with an object store, the
   * caller hands each to `discard` once the transaction committed.
   */
  async deleteInTransaction(tenant: TenantEntity, tfps: string[], manager: EntityManager): Promise<string[]> {
    const named = tfps.map((tfp) => parseTfp(tfp)).filter((p): p is ParsedTfp => !!p && p.tenant === tenant.name);
    if (!named.length) return [];
    const rows = (await manager.query(
      `DELETE FROM files f USING unnest($2::uuid[], $3::text[]) AS t (document_id, file_name)
        WHERE f.tenant_id = $1 AND f.document_id = t.document_id AND f.file_name = t.file_name AND f.held_by IS NULL
        RETURNING f.document_id, f.file_name`,
      [tenant.id, named.map((p) => p.documentId), named.map((p) => p.fileName)],
    )) as [{ document_id: string; file_name: string }[], number];
    return rows[0].map((row) => formatTfp(tenant.name, row.document_id, row.file_name));
  }

  /**
   * Removes what `store` wrote for a tfp whose row was rolled back (an import that failed): the object store's
   * content. A file that was committed is left alone.
   */
  async discard(tenant: TenantEntity, tfp: string): Promise<void> {
    const parsed = parseTfp(tfp);
    if (!parsed || parsed.tenant !== tenant.name) return;
    if (await this.dataSource.manager.existsBy(FileEntity, { tenantId: tenant.id, documentId: parsed.documentId })) return;
    await this.blobs.removeDocument(tenant.id, parsed.documentId);
  }

  /** Files of the tenant matching every filter given, in upload order, paged by keyset. */
  async list(tenant: TenantEntity, filter: FileFilter, limit: number, cursor?: string | null): Promise<{ items: FileRecord[]; cursor?: string }> {
    const limitProblem = checkLimit(limit);
    if (limitProblem) throw badRequest(limitProblem);
    const qb = this.dataSource.manager.createQueryBuilder(FileEntity, 'f').where('f.tenantId = :tenant AND f.heldBy IS NULL', { tenant: tenant.id });
    checkFileFilter(filter);
    const list = cursorList(CURSOR_LIST, tenant.id, filter);
    if (cursor) {
      const after = decodeCursor(list, cursor);
      if (typeof after !== 'number') throw badRequest('The cursor is not one this list issued.');
      qb.andWhere('f.seq > :after', { after });
    }
    // Exact values are containment in the metadata's GIN index; displayName prefixes use the index on its first 256 characters.
    if (filter.displayName != null) qb.andWhere('f.metadata @> CAST(:displayName AS jsonb)', { displayName: JSON.stringify({ displayName: filter.displayName }) });
    if (filter.displayNameStartsWith != null) {
      const indexed = leftChars(filter.displayNameStartsWith, DISPLAY_NAME_PREFIX_INDEXED);
      qb.andWhere(`left(f.metadata->>'displayName', ${DISPLAY_NAME_PREFIX_INDEXED}) LIKE :indexedPrefix`, { indexedPrefix: likePrefix(indexed) });
      if (indexed !== filter.displayNameStartsWith) qb.andWhere("f.metadata->>'displayName' LIKE :prefix", { prefix: likePrefix(filter.displayNameStartsWith) });
    }
    if (filter.displayNameContains != null) qb.andWhere("f.metadata->>'displayName' LIKE :contains", { contains: likeContains(filter.displayNameContains) });
    if (filter.classification != null) qb.andWhere("f.metadata->>'classification' = :classification", { classification: filter.classification });
    if (filter.fileName != null) qb.andWhere('f.fileName = :fileName', { fileName: filter.fileName });
    if (filter.contentType != null) {
      if (filter.contentType.endsWith('/*')) qb.andWhere("split_part(f.contentType, '/', 1) = :type", { type: filter.contentType.slice(0, -2) });
      else qb.andWhere('f.contentType = :contentType', { contentType: filter.contentType });
    }
    if (filter.attributes?.length) {
      qb.andWhere('f.metadata @> CAST(:attributes AS jsonb)', { attributes: JSON.stringify({ attributes: filter.attributes }) });
    }
    const rows = await qb.orderBy('f.seq', 'ASC').limit(limit + 1).getMany();
    const items = rows.slice(0, limit).map((row) => toRecord(row, tenant));
    return { items, cursor: rows.length > limit ? encodeCursor(list, Number(rows[limit - 1].seq)) : undefined };
  }

  /** The row a tfp names: a file of the repository itself, or one held by `holder` when given (404 otherwise). */
  private async row(tenant: TenantEntity, tfp: string, holder?: FileHolder): Promise<StoredRow> {
    const parsed = this.parseTfp(tenant, tfp);
    const entity = await this.dataSource.manager.findOneBy(FileEntity, { tenantId: tenant.id, documentId: parsed.documentId, heldBy: holder ?? IsNull() });
    // A tfp with the right documentId but another name is not this file's.
    if (!entity || entity.fileName !== parsed.fileName) throw fileNotFound(tfp);
    return { entity, tenant };
  }
}

const fileNotFound = (tfp: string) => notFound(`No file '${tfp}' in this tenant.`);

const keyOf = (entity: FileEntity): BlobKey => ({ tenantId: entity.tenantId, fileId: entity.id, documentId: entity.documentId, contentId: entity.contentId });

/** A media type as given (`type/subtype` with parameters), else `application/octet-stream`. */
function cleanContentType(value: string | undefined): string {
  const text = (value ?? '').trim();
  return text.length <= 255 && MEDIA_TYPE.test(text) ? text : 'application/octet-stream';
}

function toRecord(entity: FileEntity, tenant: TenantEntity): FileRecord {
  return {
    tfp: formatTfp(tenant.name, entity.documentId, entity.fileName),
    fileName: entity.fileName,
    contentType: entity.contentType,
    size: Number(entity.size),
    sha256: entity.sha256,
    etag: `"sha256-${Buffer.from(entity.sha256, 'hex').toString('base64url')}"`,
    displayName: entity.metadata.displayName ?? null,
    classification: entity.metadata.classification ?? null,
    attributes: entity.metadata.attributes ?? [],
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
  };
}

/** The bytes of a stream as they pass, counted and hashed. */
function measured(source: AsyncIterable<Buffer | string>) {
  const hash = createHash('sha256');
  let digest: string | undefined;
  let size = 0;
  return {
    get size() {
      return size;
    },
    chunks: (async function* () {
      for await (const chunk of source) {
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        hash.update(bytes);
        size += bytes.length;
        yield bytes;
      }
    })(),
    sha256: () => (digest ??= hash.digest('hex')),
  };
}
