import type { Readable } from 'node:stream';
import type { TenantEntity } from '../../management/tenants/tenant.entity';
import { AasxFileInput, assignPartNames, writeAasxPackage } from '../aasx';
import { fileElements } from '../model/file-elements';
import type { JsonObject } from '../model/parse';
import type { EnvironmentParts } from './environment-parts';

/** A stored file a File value or thumbnail path names (a tfp of the tenant), or undefined when it names none. */
export interface FileSource {
  find(tenant: TenantEntity, value: string): Promise<{ fileName: string; contentType: string; open(): Promise<Readable> } | undefined>;
}

/** Writes the environment's spec part, from its parts, as text chunks (JSON or XML). */
export type SpecWriter = (parts: EnvironmentParts) => AsyncIterable<string>;

/**
 * An environment as an AASX package, streamed: every file that a File element or an asset thumbnail names by a
 * tfp that resolves is packed under `/aasx/files/` and the value rewritten to its part name; values that do not
 * resolve and are URIs (links, tfps of deleted files) stay as they are. A value that names a path in a package
 * (`/TestFile.pdf`, `files/a.pdf`: no scheme, RFC 3986 4.2) but no stored file is left out (a File's value, a
 * shell's default thumbnail), so that the package is consistent: readers resolve such a value to a part of the
 * package, and refuse the package when that part is missing. The first shell's thumbnail, if it resolves, is also
 * the package thumbnail; a shell without one is no error.
 *
 * `parts` is called twice: once to find the files (a first pass over the documents, so that a whole tenant is
 * never held in memory), once to write the spec part with the values rewritten.
 */
export async function aasxPackage(
  tenant: TenantEntity,
  parts: () => Promise<EnvironmentParts>,
  files: FileSource,
  format: 'json' | 'xml',
  writeSpec: SpecWriter,
): Promise<Readable> {
  const found = new Map<string, { fileName: string; contentType: string; open(): Promise<Readable> }>();
  let thumbnail: string | undefined;
  const first = await parts();
  for await (const shell of first.assetAdministrationShells) {
    const path = thumbnailOf(shell)?.path;
    if (typeof path === 'string' && !found.has(path)) {
      const file = await files.find(tenant, path);
      if (file) found.set(path, file);
    }
    if (thumbnail === undefined && typeof path === 'string' && found.has(path)) thumbnail = path;
  }
  for await (const submodel of first.submodels) {
    for (const element of fileElements(submodel)) {
      const value = element.value;
      if (typeof value !== 'string' || found.has(value)) continue;
      const file = await files.find(tenant, value);
      if (file) found.set(value, file);
    }
  }
  const values = [...found.keys()];
  const names = assignPartNames(values.map((value) => `/aasx/files/${found.get(value)!.fileName}`));
  const partOf = new Map(values.map((value, i) => [value, names[i]]));
  const inputs: AasxFileInput[] = values.map((value, i) => ({ path: names[i], contentType: found.get(value)!.contentType, open: found.get(value)!.open }));

  const rewritten = async (): Promise<EnvironmentParts> => {
    const again = await parts();
    return {
      assetAdministrationShells: mapped(again.assetAdministrationShells, (shell) => {
        const thumb = thumbnailOf(shell);
        const part = typeof thumb?.path === 'string' ? partOf.get(thumb.path) : undefined;
        if (part) thumb!.path = part;
        else if (typeof thumb?.path === 'string' && isPackagePath(thumb.path)) delete (shell.assetInformation as JsonObject).defaultThumbnail;
        return shell;
      }),
      submodels: mapped(again.submodels, (submodel) => {
        for (const element of fileElements(submodel)) {
          const part = typeof element.value === 'string' ? partOf.get(element.value) : undefined;
          if (part) element.value = part;
          else if (typeof element.value === 'string' && isPackagePath(element.value)) delete element.value;
        }
        return submodel;
      }),
      conceptDescriptions: again.conceptDescriptions,
    };
  };
  return writeAasxPackage({
    spec: { format, content: () => (async function* () { yield* writeSpec(await rewritten()); })() },
    files: inputs,
    ...(thumbnail ? { thumbnail: inputs[values.indexOf(thumbnail)] } : {}),
  });
}

/**
 * Whether a File value or thumbnail path names a part of the package it is in: a relative reference without a
 * scheme and not a network path (RFC 3986, 4.2), as AASX readers take it (`/aasx/files/a.pdf`, `a.pdf`).
 */
export function isPackagePath(value: string): boolean {
  return value !== '' && !value.startsWith('//') && !value.split('/')[0].includes(':');
}

const thumbnailOf = (shell: JsonObject) => (shell.assetInformation as JsonObject | undefined)?.defaultThumbnail as JsonObject | undefined;

async function* mapped(items: AsyncIterable<JsonObject>, map: (item: JsonObject) => JsonObject): AsyncIterable<JsonObject> {
  for await (const item of items) yield map(item);
}
