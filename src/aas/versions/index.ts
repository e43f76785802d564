/**
 * The versions of the AAS metamodel the server speaks (V3.0 and V3.1) over one stored model: content is stored as
 * written (the union of both), each identifiable knows the newest version it needs (`neededVersion`), V3.0 clients
 * see it mapped down (`mapDownToV30`) and their writes keep what they did not touch (`mergeV30Write`), and writes
 * are verified with the constraints of the version they come through (`verifyFor`, `readFor`).
 */
export { AAS_VERSIONS, type AasVersion, neededVersion } from './needed';
export { mapDownToV30, mapElementDownToV30, mergeV30Element, mergeV30Write, sameJson } from './map';
export { kindOf, parseFor, readElementFor, parsePartFor, readFor, readTolerantlyFor, readableByV30, verifyFor, V31_MESSAGES, V31_RULE } from './verify';
