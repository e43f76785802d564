import { AasxError, AasxPackage, readAasxPackage } from '../aasx';
import { badRequest } from '../../graphql/errors';
import { readEnvironmentDocument } from './environment-document';
import type { ImportWarning } from './import-warnings';
import { isExternal, partName } from './part-name';

/** The environment of a package's one spec part, and what reading it found. */
export interface PackageEnvironment {
  pkg: AasxPackage;
  /** The spec part's name, for messages. */
  specPath: string;
  environment: unknown;
  /** The package's own (`package`), and those of reading the spec part's AAS version (`version`: V3.1, V2.0, ...). */
  warnings: ImportWarning[];
}

/**
 * Reads an AASX package (a file on disk, as uploaded) and its one spec part: validates the package (reader: OPC
 * relationships in both namespaces, content types, limits, no unsafe names) and reads its spec part
 * (readEnvironmentDocument). Problems with the
 * package are 400s saying why. Shared by the import and the AASX File Server (which reads the shells' ids).
 */
export async function readPackageEnvironment(packagePath: string): Promise<PackageEnvironment> {
  let pkg: AasxPackage;
  try {
    pkg = await readAasxPackage(packagePath);
  } catch (err) {
    if (err instanceof AasxError) throw badRequest(`Not a valid AASX package: ${err.message}`);
    throw err;
  }
  if (pkg.specs.length !== 1) throw badRequest(`The package holds ${pkg.specs.length} AAS spec parts; exactly one is expected.`);
  const spec = pkg.specs[0];
  const warnings = pkg.warnings.map((text): ImportWarning => ({ kind: 'package', text }));
  let text: string;
  try {
    text = await spec.text();
  } catch (err) {
    if (err instanceof AasxError) throw badRequest(`${spec.path}: ${err.message}`);
    throw err;
  }
  // A V3.1 File without contentType is read with the content type of the package part it names.
  const contentTypeOf = (value: string) => {
    const part = isExternal(value) ? undefined : partName(value);
    return part === undefined ? undefined : pkg.part(part)?.contentType;
  };
  const read = readEnvironmentDocument(text, spec.format, spec.path, { contentTypeOf });
  const environment = read.environment;
  warnings.push(...read.warnings.map((text): ImportWarning => ({ kind: 'version', text })));
  return { pkg, specPath: spec.path, environment, warnings };
}
