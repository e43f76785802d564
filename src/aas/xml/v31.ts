import type { XmlDialect } from './reader';

/** The namespace of the AAS V3.1 XML serialization (IDTA-01001-3-1, schema AAS.xsd of that release). */
export const AAS_V31_NAMESPACE = 'https://admin-shell.io/aas/3/1';

/**
 * The V3.1 XML schema against the V3.0 one the reader's table is generated from (`schema-table.ts`). Besides its
 * namespace, V3.1 differs in:
 * - elements V3.0 requires and V3.1 makes optional: Blob/File `contentType`, Entity `entityType`,
 *   RelationshipElement (and so AnnotatedRelationshipElement) `first` and `second`;
 * - the literal `Role` of AssetKind;
 * - what the reader does not check in either version (the metamodel verification does, on the JSON): lengths
 *   (Identifier 2048 instead of 2000 characters), the idShort pattern (a hyphen inside), a URI pattern on
 *   Resource/File paths, and the order of EmbeddedDataSpecification's two elements (the reader takes any order).
 * What the reader then returns can lack what V3.0 requires or carry `Role`: `mapV31Environment` maps it onto V3.0.
 */
export const AAS_V31_XML: XmlDialect = {
  namespace: AAS_V31_NAMESPACE,
  optional: {
    blob: ['contentType'],
    file: ['contentType'],
    entity: ['entityType'],
    relationshipElement: ['first', 'second'],
    annotatedRelationshipElement: ['first', 'second'],
  },
  literals: { assetKind: ['Role'] },
};

/**
 * The namespace of AAS V3.2 XML as tools write it from the drafts of the next release. Read with the V3.1 table:
 * the drafts change the metamodel little against V3.1, an element V3.1 does not know is refused by name (nothing
 * is silently lost), and what is read is mapped onto V3.0 as V3.1 is, with a warning that says so.
 */
export const AAS_V32_NAMESPACE = 'https://admin-shell.io/aas/3/2';

/** V3.2 XML: the V3.1 dialect under the V3.2 namespace. */
export const AAS_V32_XML: XmlDialect = { ...AAS_V31_XML, namespace: AAS_V32_NAMESPACE };
