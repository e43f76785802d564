import fs from 'node:fs';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { checkLimit, cursorList, decodeCursor, encodeCursor } from '../../common/cursor';
import type { FileService } from '../../files/file.service';
import { badRequest, notFound } from '../../graphql/errors';
import { isUuid } from '../../common/uuid';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { readPackageEnvironment } from '../import/aasx-import';
import { AasxPackageEntity } from './package.entity';

/** The AASX File Server's PackageDescription. */
export interface PackageDescription {
  packageId: string;
  aasIds: string[];
}

/** A package upload, already on disk (a temporary file), with the name it is stored under. */
export interface PackageUpload {
  path: string;
  fileName: string;
}

export const AASX_CONTENT_TYPE = 'application/asset-administration-shell-package';
const CURSOR_LIST = 'packages';
/** A package's file is held by this module: the file repository's routes neither list nor change it. */
const HOLDER = 'aasx-package';

/**
 * The AASX File Server (AAS Part 2, AasxFileServerServiceSpecification SSP-001): packages stored as files of the
 * tenant file repository held by this module (invisible to `/files`), with the ids of the shells they hold read from the package itself (never taken from
 * the client). A package's row and its file are written in one transaction; an invalid package is refused (400)
 * before anything is stored.
 */
export class PackageService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly files: FileService,
    private readonly log?: Logger,
  ) {}

  /** Packages of the tenant, in upload order, optionally only those holding the shell `aasId`. */
  async list(tenant: TenantEntity, aasId: string | null | undefined, limit: number, cursor?: string | null): Promise<{ items: PackageDescription[]; cursor?: string }> {
    const limitProblem = checkLimit(limit);
    if (limitProblem) throw badRequest(limitProblem);
    const qb = this.dataSource.manager.createQueryBuilder(AasxPackageEntity, 'p').where('p.tenantId = :tenant', { tenant: tenant.id });
    const list = cursorList(CURSOR_LIST, tenant.id, aasId ?? null);
    if (cursor) {
      const after = decodeCursor(list, cursor);
      if (typeof after !== 'number') throw badRequest('The cursor is not one this list issued.');
      qb.andWhere('p.seq > :after', { after });
    }
    if (aasId != null) qb.andWhere('p.aas_ids @> ARRAY[CAST(:aasId AS text)]', { aasId });
    const rows = await qb.orderBy('p.seq', 'ASC').limit(limit + 1).getMany();
    return { items: rows.slice(0, limit).map(describe), cursor: rows.length > limit ? encodeCursor(list, Number(rows[limit - 1].seq)) : undefined };
  }

  /** Stores a package: its shells are read from it first (400 when it is no valid package). */
  async create(tenant: TenantEntity, upload: PackageUpload): Promise<PackageDescription> {
    const aasIds = await readShellIds(upload.path);
    let tfp: string | undefined;
    try {
      const row = await this.dataSource.transaction(async (m) => {
        const file = await this.files.store(tenant, { fileName: upload.fileName, contentType: AASX_CONTENT_TYPE, stream: fs.createReadStream(upload.path), heldBy: HOLDER }, m);
        tfp = file.tfp;
        const inserted = await m.insert(AasxPackageEntity, { tenantId: tenant.id, file: file.tfp, fileName: file.fileName, aasIds });
        return m.findOneByOrFail(AasxPackageEntity, { tenantId: tenant.id, id: (inserted.identifiers[0] as { id: string }).id });
      });
      return describe(row);
    } catch (err) {
      if (tfp) await this.files.discard(tenant, tfp).catch((e) => this.log?.warn({ err: e, tfp }, 'could not remove the file of a package that was not stored'));
      throw err;
    }
  }

  /** Replaces a package's bytes (and name); its shells are read again from the new package. */
  async replace(tenant: TenantEntity, packageId: string, upload: PackageUpload): Promise<PackageDescription> {
    await this.row(tenant, packageId);
    const aasIds = await readShellIds(upload.path);
    let tfp: string | undefined;
    let old: string | undefined;
    let row: AasxPackageEntity;
    try {
      row = await this.dataSource.transaction(async (m) => {
        const locked = await m.findOne(AasxPackageEntity, { where: { id: packageId, tenantId: tenant.id }, lock: { mode: 'pessimistic_write' } });
        if (!locked) throw packageNotFound(packageId);
        old = locked.file;
        const file = await this.files.store(tenant, { fileName: upload.fileName, contentType: AASX_CONTENT_TYPE, stream: fs.createReadStream(upload.path), heldBy: HOLDER }, m);
        tfp = file.tfp;
        await m.update(AasxPackageEntity, { tenantId: tenant.id, id: locked.id }, { file: file.tfp, fileName: file.fileName, aasIds, updatedAt: new Date() });
        return m.findOneByOrFail(AasxPackageEntity, { tenantId: tenant.id, id: locked.id });
      });
    } catch (err) {
      if (tfp) await this.files.discard(tenant, tfp).catch((e) => this.log?.warn({ err: e, tfp }, 'could not remove the file of a package that was not replaced'));
      throw err;
    }
    if (old) await this.removeFile(tenant, old);
    return describe(row);
  }

  /** The package's bytes, streamed, with its file name and size. */
  async open(tenant: TenantEntity, packageId: string): Promise<{ fileName: string; contentType: string; size: number; etag: string; stream: Readable }> {
    const row = await this.row(tenant, packageId);
    const { record, stream } = await this.files.open(tenant, row.file, undefined, HOLDER);
    return { fileName: row.fileName, contentType: record.contentType, size: record.size, etag: record.etag, stream };
  }

  async delete(tenant: TenantEntity, packageId: string): Promise<void> {
    const row = await this.row(tenant, packageId);
    const result = await this.dataSource.manager.delete(AasxPackageEntity, { id: row.id, tenantId: tenant.id });
    if (!result.affected) throw packageNotFound(packageId);
    await this.removeFile(tenant, row.file);
  }

  private async removeFile(tenant: TenantEntity, tfp: string): Promise<void> {
    await this.files.delete(tenant, tfp, HOLDER).catch((err) => this.log?.warn({ err, tfp }, 'could not remove the file of a replaced or deleted package'));
  }

  private async row(tenant: TenantEntity, packageId: string): Promise<AasxPackageEntity> {
    const row = isUuid(packageId) ? await this.dataSource.manager.findOneBy(AasxPackageEntity, { id: packageId.toLowerCase(), tenantId: tenant.id }) : null;
    if (!row) throw packageNotFound(packageId);
    return row;
  }
}

const packageNotFound = (id: string) => notFound(`No AASX package '${id}' in this tenant.`);

const describe = (row: AasxPackageEntity): PackageDescription => ({ packageId: row.id, aasIds: row.aasIds ?? [] });

/** The ids of the shells of the package at `path`: its one spec part, as JSON, V3.0 XML or V2.0 XML. */
export async function readShellIds(path: string): Promise<string[]> {
  const { specPath, environment } = await readPackageEnvironment(path);
  const spec = { path: specPath };
  const shells = (environment as { assetAdministrationShells?: unknown } | null)?.assetAdministrationShells;
  if (shells !== undefined && !Array.isArray(shells)) throw badRequest(`${spec.path}: assetAdministrationShells is not an array.`);
  const ids: string[] = [];
  for (const shell of (shells as { id?: unknown }[] | undefined) ?? []) {
    if (typeof shell?.id !== 'string' || shell.id === '') throw badRequest(`${spec.path}: a shell has no id.`);
    if (!ids.includes(shell.id)) ids.push(shell.id);
  }
  return ids;
}
