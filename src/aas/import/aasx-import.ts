import { AasxError, AasxPackage, isAasV2Xml, readAasxPackage } from '../aasx';
import { badRequest } from '../../graphql/errors';
import { XmlReadError, readXmlEnvironment } from '../xml/reader';
import { V2XmlError, convertV2Xml } from '../xml/v2';

/** The environment of a package's one spec part, and what reading it found. */
export interface PackageEnvironment {
  pkg: AasxPackage;
  /** The spec part's name, for messages. */
  specPath: string;
  environment: unknown;
  warnings: string[];
}

/**
 * Reads an AASX package (a file on disk, as uploaded) and its one spec part: validates the package (reader: OPC
 * relationships in both namespaces, content types, limits, no unsafe names), refuses DTDs, and reads the spec
 * part as JSON, V3.0 XML or V2.0 XML (converted, with a warning for what did not map). Problems with the
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
  const warnings = [...pkg.warnings];
  let environment: unknown;
  try {
    const text = await spec.text();
    if (spec.format === 'json') {
      try {
        environment = JSON.parse(text);
      } catch (err) {
        throw badRequest(`The spec part ${spec.path} is not valid JSON: ${(err as Error).message}`);
      }
    } else if (/<!DOCTYPE/i.test(text.slice(0, 64 * 1024))) {
      // No XML with a DTD is read: entity expansion (billion laughs) and external entities (XXE) start there.
      throw badRequest(`${spec.path}: XML with a DOCTYPE (DTD) is not accepted.`);
    } else if (isAasV2Xml(text)) {
      const converted = convertV2Xml(text);
      warnings.push(`${spec.path} is an AAS V2.0 environment: converted to V3.0`, ...converted.warnings);
      environment = converted.environment;
    } else {
      environment = readXmlEnvironment(text);
    }
  } catch (err) {
    if (err instanceof AasxError || err instanceof V2XmlError || err instanceof XmlReadError) throw badRequest(`${spec.path}: ${err.message}`);
    throw err;
  }
  return { pkg, specPath: spec.path, environment, warnings };
}
