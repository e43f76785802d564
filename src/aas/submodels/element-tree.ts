import { badRequest } from '../../graphql/errors';
import { JsonObject } from '../model/parse';

/**
 * Navigation in a submodel's element tree, by idShortPath (`a.b[2].c`): the submodel's elements, a
 * collection's, entity's and annotated relationship's children by idShort, a list's by index.
 */

export type Segment = { idShort: string } | { index: number };

/**
 * A step of an idShortPath: an idShort, then any number of `[n]` indices. The idShort may hold any character but
 * `.`, `[` and `]` (the path's own separators) and control characters, and is not blank: an import keeps idShorts
 * that break AASd-002 (`I40 Language (German)`, `1677685100000`), with a warning, and what is stored stays
 * addressable. A new idShort is still judged by AASd-002 when it is written.
 */
// eslint-disable-next-line no-control-regex
const STEP = /^(?!\s*(?:\[|$))([^.[\]\u0000-\u001f\u007f]+?)((?:\[\d{1,9}\])*)$/;

export function parseIdShortPath(raw: string): Segment[] {
  if (raw === '') throw badRequest('The idShortPath is empty.');
  const segments: Segment[] = [];
  for (const step of raw.split('.')) {
    const match = STEP.exec(step);
    if (!match) throw badRequest(`The idShortPath '${raw}' is malformed at '${step}': expected idShort followed by optional [index] parts.`);
    segments.push({ idShort: match[1] });
    for (const index of match[2].matchAll(/\[(\d+)\]/g)) segments.push({ index: Number(index[1]) });
  }
  return segments;
}

export function formatIdShortPath(segments: Segment[]): string {
  return segments.map((s, i) => ('index' in s ? `[${s.index}]` : i === 0 ? s.idShort : `.${s.idShort}`)).join('');
}

/** Which property of a node holds its child elements, and whether they are addressed by index. */
interface Children {
  key: string;
  byIndex: boolean;
}

const CHILDREN: Record<string, Children> = {
  Submodel: { key: 'submodelElements', byIndex: false },
  SubmodelElementCollection: { key: 'value', byIndex: false },
  SubmodelElementList: { key: 'value', byIndex: true },
  Entity: { key: 'statements', byIndex: false },
  AnnotatedRelationshipElement: { key: 'annotations', byIndex: false },
};

export function childrenOf(node: JsonObject): Children | undefined {
  return CHILDREN[node.modelType as string];
}

export function childList(node: JsonObject): JsonObject[] {
  const children = childrenOf(node);
  return children ? ((node[children.key] ?? []) as JsonObject[]) : [];
}

/** The steps of a path as the store takes them: idShorts and list indices. */
export function stepsOf(segments: Segment[]): (string | number)[] {
  return segments.map((s) => ('index' in s ? s.index : s.idShort));
}

/** The segments of store steps. */
export function segmentsOf(steps: (string | number)[]): Segment[] {
  return steps.map((step) => (typeof step === 'number' ? { index: step } : { idShort: step }));
}

/** The idShortPaths of `node`'s descendants (all levels, or only its children with `core`). */
export function descendantPaths(node: JsonObject, prefix: Segment[], core: boolean, out: string[] = [], skip?: (child: JsonObject) => boolean): string[] {
  const children = childrenOf(node);
  if (!children) return out;
  // An item skipped (`skip`: one V3.0 does not see) keeps its index: the others keep the index they are stored at.
  childList(node).forEach((child, i) => {
    if (skip?.(child)) return;
    const segments = [...prefix, children.byIndex ? { index: i } : { idShort: child.idShort as string }];
    out.push(formatIdShortPath(segments));
    if (!core) descendantPaths(child, segments, false, out, skip);
  });
  return out;
}

/**
 * `descendantPaths` of `seen`, what a V3.0 reader got of `stored` (mapped down: the elements V3.0 does not see left
 * out, `hidden`, nothing else moved; perhaps shaped to a level since), with each list item at the index it is
 * stored at, the index a V3.0 client addresses it by (`List[2]` stays `List[2]` when the item before it is hidden).
 */
export function storedIndexPaths(seen: JsonObject, stored: JsonObject, prefix: Segment[], hidden: (child: JsonObject) => boolean, out: string[] = []): string[] {
  const children = childrenOf(seen);
  if (!children) return out;
  const storedChildren = childList(stored);
  let at = 0;
  childList(seen).forEach((child, i) => {
    while (at < storedChildren.length && hidden(storedChildren[at])) at++;
    const index = at < storedChildren.length ? at : i;
    const segments = [...prefix, children.byIndex ? { index } : { idShort: child.idShort as string }];
    out.push(formatIdShortPath(segments));
    storedIndexPaths(child, storedChildren[at] ?? child, segments, hidden, out);
    at++;
  });
  return out;
}

export type Level = 'deep' | 'core';

function operationVariables(operation: JsonObject): JsonObject[] {
  return ['inputVariables', 'outputVariables', 'inoutputVariables'].flatMap((key) => (operation[key] ?? []) as JsonObject[]);
}

/** Removes every Blob value in an element's subtree, operation variables included. */
function stripBlobs(element: JsonObject): void {
  shapeForOutput(element, 'deep', false);
}

/** Whether a Blob element is anywhere in the tree, operation variables included. */
export function containsBlob(node: JsonObject): boolean {
  if (node.modelType === 'Blob') return true;
  if (node.modelType === 'Operation' && operationVariables(node).some((v) => containsBlob(v.value as JsonObject))) return true;
  return childList(node).some(containsBlob);
}

/**
 * Shapes a document for output, in place (reads get a fresh document per request): `core` keeps the
 * node's direct children but drops theirs (with `depth` 1: drops the node's own children, for the items of a
 * list that is itself the resource); without BLOB values, Blob elements keep only their content type.
 */
export function shapeForOutput(node: JsonObject, level: Level, withBlobValue: boolean, depth = 0): JsonObject {
  const visit = (element: JsonObject, depth: number) => {
    if (!withBlobValue) {
      if (element.modelType === 'Blob') delete element.value;
      // An Operation's variables are not path children, but a Blob among them is still a BLOB value.
      if (element.modelType === 'Operation') for (const variable of operationVariables(element)) stripBlobs(variable.value as JsonObject);
    }
    const children = childrenOf(element);
    if (!children || element[children.key] === undefined) return;
    if (level === 'core' && depth >= 1) {
      delete element[children.key];
      return;
    }
    for (const child of element[children.key] as JsonObject[]) visit(child, depth + 1);
  };
  visit(node, depth);
  return node;
}

/** Attributes every element's metadata has (Referable, HasSemantics, Qualifiable, HasDataSpecification). */
const COMMON_METADATA = [
  'modelType',
  'extensions',
  'category',
  'idShort',
  'displayName',
  'description',
  'semanticId',
  'supplementalSemanticIds',
  'qualifiers',
  'embeddedDataSpecifications',
];

/** Per kind, the further metadata attributes (Part 2, `*Metadata` schemas); everything else is value. */
const KIND_METADATA: Record<string, string[]> = {
  Property: ['valueType'],
  Range: ['valueType'],
  SubmodelElementList: ['orderRelevant', 'semanticIdListElement', 'typeValueListElement', 'valueTypeListElement'],
  BasicEventElement: ['direction', 'state', 'messageTopic', 'messageBroker', 'lastUpdate', 'minInterval', 'maxInterval'],
};

function isMetadataKey(node: JsonObject, key: string): boolean {
  if (node.modelType === 'Submodel') return key !== 'submodelElements';
  return COMMON_METADATA.includes(key) || (KIND_METADATA[node.modelType as string] ?? []).includes(key);
}

/** The metadata of a submodel or element: everything but its values and child elements. */
export function metadataOf(node: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(node).filter(([key]) => isMetadataKey(node, key)));
}

/**
 * `node` with the metadata attributes of `metadata` merged over its own (a patch: attributes not given stay);
 * its values stay as they are. An attribute that is not metadata of the kind, or another modelType, is a 400.
 */
export function withMetadata(node: JsonObject, metadata: unknown): JsonObject {
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) throw badRequest('The metadata must be a JSON object.');
  const body = metadata as JsonObject;
  if (body.modelType !== undefined && body.modelType !== node.modelType) {
    throw badRequest(`The metadata's modelType '${String(body.modelType)}' differs from the ${String(node.modelType)} it updates.`);
  }
  for (const key of Object.keys(body)) {
    if (!isMetadataKey(node, key)) throw badRequest(`$.${key}: not a metadata attribute of ${String(node.modelType)}.`);
  }
  return { ...node, ...body };
}
