import { Readable } from 'node:stream';
import { DataSource } from 'typeorm';
import { badRequest } from '../graphql/errors';
import type { JsonObject } from '../aas/model/parse';
import { verifyDocumentKeeping } from '../aas/model/verify-document';
import type { ShellService } from '../aas/shells/shell.service';
import type { SubmodelService } from '../aas/submodels/submodel.service';
import type { FileService } from '../files/file.service';
import type { TenantEntity } from '../management/tenants/tenant.entity';
import { type DccConversion, type DccSpecificAssetId, DccError, convertDcc, setFileValue } from './dcc-convert';

export interface DccConvertOptions {
  /** A shell of the tenant: its asset ids are checked against the calibrated items; a stored submodel is referenced from it. */
  shellId?: string | null;
  /** The submodel's id (default `urn:dcc:{uniqueIdentifier}`). */
  submodelId?: string | null;
  /** The original's file name (default from the unique identifier). */
  fileName?: string | null;
  /** Add the calibrated items' identifications the shell lacks to its specific asset ids (needs shellId). */
  addAssetIds?: boolean | null;
}

/** A conversion as it is answered: what would be (preview) or was (store) stored. */
export interface DccResult extends Pick<DccConversion, 'schemaVersion' | 'uniqueIdentifier' | 'submodel' | 'warnings' | 'specificAssetIds' | 'signaturePresent'> {
  submodelId: string;
  /** Whether the submodel was stored (store) or not (preview). */
  stored: boolean;
  /** The shell that now references the submodel (store with a shell), else null. */
  referencedFrom: string | null;
  /** The specific asset ids added to the shell (addAssetIds; in a preview: those that would be). */
  assetIdsAdded: DccSpecificAssetId[];
  files: { role: string; idShortPath: string; fileName: string; contentType: string; size: number; tfp: string | null }[];
}

/**
 * DCC conversion (experimental): a Digital Calibration Certificate becomes a submodel of the tenant (dcc-convert.ts).
 * `preview` answers what `store` would store and stores nothing; `store` keeps the original and the embedded
 * documents in the file repository, creates the submodel with File elements holding their tfps, and references it
 * from the shell given: one transaction, nothing of it stays when a part fails.
 */
export class DccService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly shells: ShellService,
    private readonly submodels: SubmodelService,
    private readonly files: FileService,
  ) {}

  async preview(tenant: TenantEntity, dcc: Buffer, options: DccConvertOptions = {}): Promise<DccResult> {
    const conversion = this.convert(dcc, options);
    const shell = await this.shellCheck(tenant, conversion, options);
    // The conversion is canonical: a large one is not read back from the verification worker.
    const { doc: submodel } = await verifyDocumentKeeping('Submodel', conversion.submodel);
    return this.result(conversion, submodel, [...conversion.warnings, ...shell.warnings], false, null, shell.missing);
  }

  async store(tenant: TenantEntity, dcc: Buffer, options: DccConvertOptions = {}): Promise<DccResult> {
    const conversion = this.convert(dcc, options);
    const shell = await this.shellCheck(tenant, conversion, options);
    const warnings = [...conversion.warnings, ...shell.warnings];
    // The submodel is verified after its files are stored (their tfps are its File values), while it is written
    // (`createCanonical`): a submodel the metamodel refuses rolls the files and its rows back with it.
    const stored: string[] = [];
    let submodel: JsonObject;
    try {
      submodel = await this.dataSource.transaction(async (manager) => {
        for (const file of conversion.files) {
          const record = await this.files.store(tenant, { fileName: file.fileName, contentType: file.contentType, stream: Readable.from([file.content]) }, manager);
          stored.push(record.tfp);
          setFileValue(file.element, record.tfp);
        }
        const created = await this.submodels.createCanonical(tenant, conversion.submodel, { manager });
        if (options.shellId) {
          await this.shells.addSubmodelRef(tenant, options.shellId, { type: 'ModelReference', keys: [{ type: 'Submodel', value: created.id }] }, { manager });
          if (shell.missing.length) await this.shells.addSpecificAssetIds(tenant, options.shellId, shell.missing, { manager });
        }
        return created;
      });
    } catch (err) {
      // The database rolled back; a store outside it (S3) drops what this conversion put there.
      await Promise.all(stored.map((tfp) => this.files.discard(tenant, tfp).catch(() => undefined)));
      throw err;
    }
    return this.result(conversion, submodel, warnings, true, options.shellId ?? null, shell.missing);
  }

  private convert(dcc: Buffer, options: DccConvertOptions): DccConversion {
    try {
      return convertDcc(dcc, options);
    } catch (err) {
      if (err instanceof DccError) throw badRequest(err.message);
      throw err;
    }
  }

  /**
   * The named shell's asset (its globalAssetId and specific asset ids) against the calibrated items'
   * identifications: a warning when none of them is the shell's, or when the DCC offers none to compare; with
   * addAssetIds, the identifications the shell lacks (by name and value), to be added.
   */
  private async shellCheck(tenant: TenantEntity, conversion: DccConversion, options: DccConvertOptions): Promise<{ warnings: string[]; missing: DccSpecificAssetId[] }> {
    const { shellId } = options;
    if (!shellId) {
      if (options.addAssetIds) throw badRequest('addAssetIds needs shellId: the shell the asset ids are added to.');
      return { warnings: [], missing: [] };
    }
    const shell = await this.shells.get(tenant, shellId);
    const info = (shell.assetInformation ?? {}) as { globalAssetId?: string; specificAssetIds?: { name: string; value: string }[] };
    const present = info.specificAssetIds ?? [];
    const missing = options.addAssetIds ? conversion.specificAssetIds.filter((id) => !present.some((p) => p.name === id.name && p.value === id.value)) : [];
    const values = new Set([...(info.globalAssetId ? [info.globalAssetId] : []), ...present.map((id) => id.value)]);
    if (!conversion.specificAssetIds.length) return { warnings: [`The DCC names no identification of its calibrated items: whether it belongs to shell '${shellId}' is not checked.`], missing };
    if (conversion.specificAssetIds.some((id) => values.has(id.value))) return { warnings: [], missing };
    const offered = conversion.specificAssetIds.map((id) => `${id.name}=${id.value}`).join(', ');
    return { warnings: [`None of the calibrated items' identifications (${offered}) is an asset id of shell '${shellId}': check that the DCC is the certificate of its asset.`], missing };
  }

  private result(conversion: DccConversion, submodel: JsonObject, warnings: string[], stored: boolean, referencedFrom: string | null, assetIdsAdded: DccSpecificAssetId[]): DccResult {
    return {
      submodelId: submodel.id as string,
      schemaVersion: conversion.schemaVersion,
      uniqueIdentifier: conversion.uniqueIdentifier,
      submodel,
      warnings,
      specificAssetIds: conversion.specificAssetIds,
      signaturePresent: conversion.signaturePresent,
      stored,
      referencedFrom,
      assetIdsAdded,
      files: conversion.files.map((file) => ({
        role: file.role,
        idShortPath: file.idShortPath,
        fileName: file.fileName,
        contentType: file.contentType,
        size: file.content.length,
        tfp: stored ? (file.element.value as string) : null,
      })),
    };
  }
}

/** The DCC as bytes from a GraphQL argument (its UTF-8 text), with the same size limit as a request body. */
export function dccBytesOf(text: string): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (!text.trim()) throw badRequest('The DCC is empty.');
  return bytes;
}
