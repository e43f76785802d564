/** AASX packages (OPC over ZIP): reading with validation and limits, writing as a stream. No database, no HTTP. */
export { AasxError } from './errors';
export { type AasxLimits, type AasxPackage, type AasxPart, type AasxSpecPart, DEFAULT_AASX_LIMITS, readAasxPackage } from './reader';
export { type AasxFileInput, type AasxWriteInput, assignPartNames, writeAasxPackage } from './writer';
export { AAS_V2_NAMESPACE, isAasV2Xml, xmlRootNamespace } from './xml';
