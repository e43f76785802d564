import type { V2Conversion } from './v2';
import { AAS_V1_NAMESPACE, convertV1Xml } from './v1';
import { AAS_V3RC_NAMESPACE, convertV3RcXml } from './v3rc';

/**
 * The AAS XML namespaces older than V3.0 that the import converts besides V2.0 (`v2.ts`), by namespace: what
 * to call the version in a warning, and the converter.
 */
export const LEGACY_XML: ReadonlyMap<string, { version: string; convert(text: string): V2Conversion }> = new Map([
  [AAS_V1_NAMESPACE, { version: 'V1.0', convert: convertV1Xml }],
  [AAS_V3RC_NAMESPACE, { version: 'V3.0 release candidate', convert: convertV3RcXml }],
]);
