import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { badRequest, notFound } from '../../graphql/errors';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import type { FileService } from '../../files';
import type { JsonObject } from '../model/parse';
import type { ShellService } from '../shells/shell.service';
import type { Scope, SubmodelService, SubmodelWrite } from '../submodels/submodel.service';
import type { AasVersion } from '../versions';

/** A download: its media type, name, size when known, and the bytes. */
export interface Download {
  contentType: string;
  fileName: string;
  size?: number;
  etag?: string;
  stream: Readable;
}

export interface Upload {
  fileName: string;
  contentType: string;
  stream: Readable;
}

/** The largest Blob an attachment upload may fill: its bytes go into the submodel document, base64-encoded. */
export const MAX_BLOB_ATTACHMENT_BYTES = 16 * 1024 * 1024;

/**
 * Thumbnails of shells and attachments of File and Blob elements, with the platform's rules:
 * - a download streams the file a tfp names; a value that is not a tfp of this tenant (a link, a path of
 *   another system) cannot be downloaded here: 404 saying so. A Blob's attachment is its own bytes.
 * - PUT stores the upload as a new file and points only that one reference at its new tfp, in one
 *   transaction; the former file and its tfp stay valid (other references may use it).
 * - DELETE removes only the reference; the file stays in the repository.
 * - PUT and DELETE take the request's `If-Match` (`ifMatch`): the shell's or submodel's entity tag.
 * - Each comes through a version of the metamodel (`aasVersion`, default '3.0'): the change is verified with its
 *   constraints (a content type of 101 to 128 characters only through V3.1) and, through V3.0, keeps the V3.1 parts
 *   of the element or shell it did not touch.
 */
export class AttachmentService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly shells: ShellService,
    private readonly submodels: SubmodelService,
    private readonly files: FileService,
  ) {}

  async thumbnail(tenant: TenantEntity, shellId: string): Promise<Download> {
    const shell = await this.shells.get(tenant, shellId);
    const thumbnail = (shell.assetInformation as JsonObject).defaultThumbnail as JsonObject | undefined;
    if (!thumbnail) throw notFound(`Shell '${shellId}' has no thumbnail.`);
    return this.download(tenant, thumbnail.path as string, `The thumbnail of shell '${shellId}'`);
  }

  async setThumbnail(tenant: TenantEntity, shellId: string, upload: Upload, ifMatch?: string | null, aasVersion?: AasVersion): Promise<void> {
    // Checked before the upload is read; inside the transaction only its connection is used (the embedded
    // database serves one transaction at a time).
    await this.shells.get(tenant, shellId);
    await this.dataSource.transaction(async (manager) => {
      const record = await this.files.store(tenant, upload, manager);
      await this.shells.setThumbnail(tenant, shellId, { path: record.tfp, contentType: record.contentType }, { manager, ifMatch, aasVersion });
    });
  }

  async deleteThumbnail(tenant: TenantEntity, shellId: string, ifMatch?: string | null, aasVersion?: AasVersion): Promise<void> {
    await this.shells.setThumbnail(tenant, shellId, null, { ifMatch, aasVersion });
  }

  /** `view`: the version the reader speaks (an element V3.0 does not see has no attachment for it). */
  async attachment(tenant: TenantEntity, submodelId: string, path: string, scope: Scope, view?: AasVersion): Promise<Download> {
    const element = await this.fileOrBlob(tenant, submodelId, path, scope, view);
    const what = `The ${String(element.modelType)} '${path}'`;
    if (element.modelType === 'Blob') {
      if (typeof element.value !== 'string' || element.value === '') throw notFound(`${what} has no value.`);
      const bytes = Buffer.from(element.value, 'base64');
      // A Blob without contentType (V3.1) is bytes of no known type.
      return { contentType: (element.contentType as string | undefined) ?? 'application/octet-stream', fileName: String(element.idShort ?? 'blob'), size: bytes.length, stream: Readable.from([bytes]) };
    }
    if (typeof element.value !== 'string' || element.value === '') throw notFound(`${what} has no value: there is no file to download.`);
    return this.download(tenant, element.value, what);
  }

  async setAttachment(tenant: TenantEntity, submodelId: string, path: string, scope: SubmodelWrite, upload: Upload): Promise<void> {
    const element = await this.fileOrBlob(tenant, submodelId, path, scope, scope.aasVersion);
    if (element.modelType === 'Blob') {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of upload.stream) {
        size += (chunk as Buffer).length;
        if (size > MAX_BLOB_ATTACHMENT_BYTES) {
          upload.stream.destroy();
          throw badRequest(`A Blob holds at most ${MAX_BLOB_ATTACHMENT_BYTES} bytes; use a File element for larger content.`);
        }
        chunks.push(chunk as Buffer);
      }
      const value = Buffer.concat(chunks).toString('base64');
      await this.submodels.updateElement(tenant, submodelId, path, (current) => ({ ...sameKind(current, 'Blob', path), contentType: upload.contentType, value }), scope);
      return;
    }
    // The scope (the shell references the submodel) was checked above; inside the transaction only its connection is used.
    await this.dataSource.transaction(async (manager) => {
      const record = await this.files.store(tenant, upload, manager);
      await this.submodels.updateElement(
        tenant,
        submodelId,
        path,
        (current) => ({ ...sameKind(current, 'File', path), contentType: record.contentType, value: record.tfp }),
        { manager, ifMatch: scope.ifMatch, aasVersion: scope.aasVersion },
      );
    });
  }

  async deleteAttachment(tenant: TenantEntity, submodelId: string, path: string, scope: SubmodelWrite): Promise<void> {
    await this.fileOrBlob(tenant, submodelId, path, scope, scope.aasVersion);
    await this.submodels.updateElement(
      tenant,
      submodelId,
      path,
      (current) => {
        if (current.value === undefined) throw notFound(`The ${String(current.modelType)} '${path}' has no value.`);
        const { value: _value, ...rest } = fileOrBlobOnly(current, path);
        return rest;
      },
      scope,
    );
  }

  private async fileOrBlob(tenant: TenantEntity, submodelId: string, path: string, scope: Scope, view?: AasVersion): Promise<JsonObject> {
    const { element } = await this.submodels.element(tenant, submodelId, path, { shellId: scope.shellId }, view);
    return fileOrBlobOnly(element, path);
  }

  /** The file a value names, or 404 saying why there is none to download. */
  private async download(tenant: TenantEntity, value: string, what: string): Promise<Download> {
    const file = await this.files.find(tenant, value);
    if (!file) {
      const reason = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) && !value.startsWith('file:')
        ? `is a link ('${value}'), not a file of this repository; fetch it from there`
        : `('${value}') names no file of this tenant's file repository`;
      throw notFound(`${what} ${reason}.`);
    }
    return { contentType: file.contentType, fileName: file.fileName, size: file.size, etag: file.etag, stream: await file.open() };
  }
}

function fileOrBlobOnly(element: JsonObject, path: string): JsonObject {
  if (element.modelType !== 'File' && element.modelType !== 'Blob') {
    throw badRequest(`The element '${path}' is a ${String(element.modelType)}; attachments belong to File and Blob elements.`);
  }
  return element;
}

/** The element is still of the kind it was when the upload began (it may have been replaced meanwhile). */
function sameKind(element: JsonObject, kind: 'File' | 'Blob', path: string): JsonObject {
  if (element.modelType !== kind) throw badRequest(`The element '${path}' changed while the upload ran: it is a ${String(element.modelType)} now.`);
  return element;
}
