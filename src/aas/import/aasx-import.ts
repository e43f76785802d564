import { AasxError, AasxPackage, readAasxPackage } from '../aasx';
import { badRequest } from '../../graphql/errors';
import { readEnvironmentDocumentInSlices } from './environment-document';
import type { ImportWarning } from './import-warnings';
import type { AasVersion } from '../versions';

/** The environment of a package's spec parts, and what reading it found. */
export interface PackageEnvironment {
  pkg: AasxPackage;
  /** The spec parts' names, for messages ('' for a package without one). */
  specPath: string;
  environment: unknown;
  /** The package's own (`package`), and those of reading the spec part's AAS version (`version`: V3.1, V2.0, ...). */
  warnings: ImportWarning[];
  /** The version its spec parts are written in, where their namespace says it (`EnvironmentDocument`). */
  version?: AasVersion;
}

export interface PackageReadOptions {
  /**
   * Refuse a package whose [Content_Types].xml names a part in another case than the package has it (platform
   * spec, Import 6: the platform's own import route); otherwise that is a warning.
   */
  exactContentTypes?: boolean;
}

const LISTS = ['assetAdministrationShells', 'submodels', 'conceptDescriptions'] as const;

/**
 * Reads an AASX package (a file on disk, as uploaded) and its spec parts: validates the package (reader: OPC
 * relationships in both namespaces, content types, limits, no unsafe names) and reads each spec part
 * (readEnvironmentDocument). A package without a spec part is the empty environment, with a warning (as an empty
 * JSON environment is); a package with several (the AASX Package Explorer V2 wrote such) is one environment of
 * all their shells, submodels and concept descriptions, in the order of the parts, with a warning; the import
 * then treats equal ids as it does within one part. Problems with the package are 400s saying why. Shared by the
 * import and the AASX File Server (which reads the shells' ids).
 */
export async function readPackageEnvironment(packagePath: string, options: PackageReadOptions = {}): Promise<PackageEnvironment> {
  let pkg: AasxPackage;
  try {
    pkg = await readAasxPackage(packagePath);
  } catch (err) {
    if (err instanceof AasxError) throw badRequest(`Not a valid AASX package: ${err.message}`);
    throw err;
  }
  if (options.exactContentTypes && pkg.contentTypeCaseMismatches.length) {
    throw badRequest(`Not a valid AASX package: ${pkg.contentTypeCaseMismatches[0]}`, pkg.contentTypeCaseMismatches);
  }
  const warnings = pkg.warnings.map((text): ImportWarning => ({ kind: 'package', text }));
  const environments: unknown[] = [];
  const versions = new Set<AasVersion | undefined>();
  for (const spec of pkg.specs) {
    let text: string;
    try {
      text = await spec.text();
    } catch (err) {
      if (err instanceof AasxError) throw badRequest(`${spec.path}: ${err.message}`);
      throw err;
    }
    const read = await readEnvironmentDocumentInSlices(text, spec.format, spec.path);
    environments.push(read.environment);
    versions.add(read.version);
    warnings.push(...read.warnings.map((text): ImportWarning => ({ kind: 'version', text })));
  }
  const specPath = pkg.specs.map((spec) => spec.path).join(', ');
  // Parts of different versions: each identifiable is read as JSON's are (as V3.1 where V3.0 cannot read it).
  const version = versions.size === 1 ? [...versions][0] : undefined;
  if (environments.length === 1) return { pkg, specPath, environment: environments[0], warnings, version };
  if (environments.length > 1) {
    warnings.push({ kind: 'package', text: `The package has ${environments.length} AAS spec parts (${specPath}): read as one environment, their contents in that order` });
  }
  return { pkg, specPath, environment: mergedEnvironment(environments), warnings, version };
}

/** One environment of the lists of several (each read from a spec part); a part that is no environment is left for the import to refuse. */
function mergedEnvironment(environments: unknown[]): unknown {
  const merged: Record<string, unknown[]> = {};
  for (const environment of environments) {
    if (environment === null || typeof environment !== 'object' || Array.isArray(environment)) return environment;
    for (const list of LISTS) {
      const items = (environment as Record<string, unknown>)[list];
      if (Array.isArray(items)) (merged[list] ??= []).push(...items);
      else if (items !== undefined) return environment;
    }
  }
  return merged;
}
