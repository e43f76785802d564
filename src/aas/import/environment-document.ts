import { badRequest } from '../../graphql/errors';
import { AAS_V2_NAMESPACE, xmlRootNamespace } from '../aasx';
import { LEGACY_XML } from '../xml/legacy';
import { type V31MappingOptions, mapV31Environment } from '../model/v31-mapping';
import { XmlReadError, readXmlEnvironment } from '../xml/reader';
import { V2XmlError, convertV2Xml } from '../xml/v2';
import { AAS_V31_NAMESPACE, AAS_V31_XML } from '../xml/v31';

/** An environment read from a document, and what reading it found. */
export interface EnvironmentDocument {
  environment: unknown;
  warnings: string[];
}

/**
 * Reads an environment document, the spec part of a package or an uploaded `.json`/`.xml` file: JSON (V3.0 or
 * V3.1), V3.0 XML, V3.1 XML, or V2.0, V1.0 or V3.0 release candidate XML (converted, with a warning for what did
 * not map). V3.1 content is mapped onto V3.0 (`mapV31Environment`, with a warning for each thing mapped); JSON has
 * no namespace that says its version, so every JSON environment goes through that mapping. No XML with a DTD is
 * read. Every problem is a 400 whose message starts with `name` (the part name, the file name). `v31` tells the
 * mapping the package's parts.
 */
export function readEnvironmentDocument(text: string, format: 'json' | 'xml', name: string, v31: V31MappingOptions = {}): EnvironmentDocument {
  const warnings: string[] = [];
  try {
    if (format === 'json') {
      let environment: unknown;
      try {
        environment = JSON.parse(text);
      } catch (err) {
        throw badRequest(`${name} is not valid JSON: ${(err as Error).message}`);
      }
      mapV31Environment(environment, warnings, v31);
      return { environment, warnings };
    }
    if (/<!DOCTYPE/i.test(text.slice(0, 64 * 1024))) {
      // Entity expansion (billion laughs) and external entities (XXE) start with a DTD.
      throw badRequest(`${name}: XML with a DOCTYPE (DTD) is not accepted.`);
    }
    // The root element's namespace says the version (read once: no further than the root tag).
    const namespace = xmlRootNamespace(text);
    if (namespace === AAS_V2_NAMESPACE) {
      const converted = convertV2Xml(text);
      warnings.push(`${name} is an AAS V2.0 environment: converted to V3.0`, ...converted.warnings);
      return { environment: converted.environment, warnings };
    }
    if (namespace === AAS_V31_NAMESPACE) {
      const environment = readXmlEnvironment(text, { dialect: AAS_V31_XML });
      warnings.push(`${name} is an AAS V3.1 environment: read as V3.0`);
      mapV31Environment(environment, warnings, v31);
      return { environment, warnings };
    }
    const legacy = namespace === undefined ? undefined : LEGACY_XML.get(namespace);
    if (legacy) {
      const converted = legacy.convert(text);
      warnings.push(`${name} is an AAS ${legacy.version} environment (${namespace}): converted to V3.0`, ...converted.warnings);
      return { environment: converted.environment, warnings };
    }
    return { environment: readXmlEnvironment(text), warnings };
  } catch (err) {
    if (err instanceof V2XmlError || err instanceof XmlReadError) throw badRequest(`${name}: ${err.message}`);
    throw err;
  }
}
