import { SLICE_CHARS, parseJsonInSlices } from '../../common/json-slices';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { badRequest } from '../../graphql/errors';
import { AAS_V2_NAMESPACE, xmlRootNamespace } from '../aasx';
import { LEGACY_XML } from '../xml/legacy';
import { XmlReadError, readXmlEnvironment } from '../xml/reader';
import { V2XmlError, convertV2Xml } from '../xml/v2';
import { repairDataSpecifications } from '../model/data-specification-repair';
import { repairSubmodelReferences } from '../model/submodel-references';
import { AAS_NAMESPACE } from '../xml/schema-table';
import { AAS_V1_NAMESPACE } from '../xml/v1';
import { AAS_V31_NAMESPACE, AAS_V31_XML, AAS_V32_NAMESPACE, AAS_V32_XML } from '../xml/v31';
import { AAS_V3RC_NAMESPACE } from '../xml/v3rc';
import type { XmlDialect } from '../xml/reader';
import type { AasVersion } from '../versions';

/**
 * What the import relaxes in every V3 XML dialect: an embedded data specification without its `dataSpecification`
 * (real packages of two tools write it so) is read, and `repairDataSpecifications` gives it the reference its
 * content implies, with a warning.
 */
const tolerant = (dialect: XmlDialect): XmlDialect => ({ ...dialect, optional: { ...dialect.optional, embeddedDataSpecification: ['dataSpecification'] } });
const V30_IMPORT_XML = tolerant({ namespace: AAS_NAMESPACE, optional: {}, literals: {} });
const V31_IMPORT_XML = tolerant(AAS_V31_XML);
const V32_IMPORT_XML = tolerant(AAS_V32_XML);

/** Every XML namespace the import reads, as a refusal of another one names them. */
export const ACCEPTED_XML_NAMESPACES = [
  `${AAS_NAMESPACE} (V3.0)`,
  `${AAS_V31_NAMESPACE} (V3.1)`,
  `${AAS_V32_NAMESPACE} (V3.2 drafts, read as V3.1)`,
  `${AAS_V2_NAMESPACE} (V2.0)`,
  `${AAS_V1_NAMESPACE} (V1.0)`,
  `${AAS_V3RC_NAMESPACE} (V3.0 release candidate)`,
];

/** An environment read from a document, and what reading it found. */
export interface EnvironmentDocument {
  environment: unknown;
  warnings: string[];
  /**
   * The version of the metamodel the document is written in, where its namespace says it (XML); undefined for JSON,
   * which has no namespace: each of its identifiables is read as V3.1 when V3.0 cannot read it as written.
   */
  version?: AasVersion;
}

/**
 * Reads an environment document, the spec part of a package or an uploaded `.json`/`.xml` file: JSON (V3.0 or
 * V3.1), V3.0 XML, V3.1 XML, V3.2 XML (read as V3.1), or V2.0, V1.0 or V3.0 release candidate XML (converted, with
 * a warning for what did not map); any other namespace is refused naming those it could be. Embedded data
 * specifications without their reference are repaired (`repairDataSpecifications`, with a warning), and so are a
 * shell's submodel references written as ExternalReferences to a Submodel (`repairSubmodelReferences`). V3.1
 * content is kept as written (`version` says which version the document is in; the import stores it so). No XML
 * with a DTD is read. Every problem is a 400 whose message starts with `name` (the part name, the file name).
 */
export function readEnvironmentDocument(text: string, format: 'json' | 'xml', name: string): EnvironmentDocument {
  const warnings: string[] = [];
  try {
    if (format === 'json') {
      let environment: unknown;
      try {
        environment = JSON.parse(text);
      } catch (err) {
        throw badRequest(`${name} is not valid JSON: ${(err as Error).message}`);
      }
      return jsonEnvironment(environment, name);
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
    if (namespace === AAS_V31_NAMESPACE || namespace === AAS_V32_NAMESPACE) {
      const v32 = namespace === AAS_V32_NAMESPACE;
      const environment = readXmlEnvironment(text, { dialect: v32 ? V32_IMPORT_XML : V31_IMPORT_XML });
      if (v32) warnings.push(`${name} is an AAS V3.2 environment (${namespace}): read as V3.1`);
      repairDataSpecifications(environment, warnings, name);
      repairSubmodelReferences(environment, warnings, name);
      return { environment, warnings, version: '3.1' };
    }
    const legacy = namespace === undefined ? undefined : LEGACY_XML.get(namespace);
    if (legacy) {
      const converted = legacy.convert(text);
      warnings.push(`${name} is an AAS ${legacy.version} environment (${namespace}): converted to V3.0`, ...converted.warnings);
      return { environment: converted.environment, warnings };
    }
    // Without a namespace read here (no root element before a DOCTYPE, not well-formed) the reader says what is wrong.
    if (namespace !== undefined && namespace !== AAS_NAMESPACE) {
      throw badRequest(`${name}: the root element's namespace is '${namespace}'; accepted are ${ACCEPTED_XML_NAMESPACES.join(', ')}.`);
    }
    const environment = readXmlEnvironment(text, { dialect: V30_IMPORT_XML });
    repairDataSpecifications(environment, warnings, name);
    repairSubmodelReferences(environment, warnings, name);
    return { environment, warnings, version: '3.0' };
  } catch (err) {
    if (err instanceof V2XmlError || err instanceof XmlReadError) throw badRequest(`${name}: ${err.message}`);
    throw err;
  }
}

function jsonEnvironment(environment: unknown, name: string): EnvironmentDocument {
  const warnings: string[] = [];
  repairDataSpecifications(environment, warnings, name);
  repairSubmodelReferences(environment, warnings, name);
  return { environment, warnings };
}

/**
 * `readEnvironmentDocument`, with a large JSON document parsed in slices (`parseJsonInSlices`) between which the
 * event loop serves other requests: one JSON.parse of an upload of 100,000 shells (19 MB) holds it for a quarter
 * of a second and more.
 */
export async function readEnvironmentDocumentInSlices(text: string, format: 'json' | 'xml', name: string): Promise<EnvironmentDocument> {
  if (format !== 'json' || text.length <= SLICE_CHARS) return readEnvironmentDocument(text, format, name);
  let environment: unknown;
  try {
    environment = await parseJsonInSlices(text);
  } catch (err) {
    throw badRequest(`${name} is not valid JSON: ${(err as Error).message}`);
  }
  // The repairs walk the whole document: the loop gets a turn first.
  await nextTurn();
  return jsonEnvironment(environment, name);
}
