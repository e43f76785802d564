/**
 * How deep submodel elements may nest, in AAS levels (a submodel's own elements are at level 1, the elements of a
 * collection or list in it at level 2, ...): one rule for every route and every format (JSON, XML, AASX, V2/V1
 * XML), checked on each document as it comes in (`elementsNestDeeperThan`). Generous for real data: published
 * templates nest below 10 levels, the deepest real packages seen about 65 (a V2 package of 207 XML elements).
 */
export const MAX_ELEMENT_DEPTH = 100;

/**
 * What lies around and inside the elements of the deepest document beyond two levels per AAS level: the
 * environment, its list and the submodel (3 JSON levels), an element's deepest own structure (a data
 * specification's value list: 9 levels down to a key), a request's wrapping (GraphQL variables), with room to spare.
 */
const AROUND = 32;

/**
 * The deepest nesting of JSON objects and arrays accepted anywhere: request bodies, GraphQL variables, stored
 * documents. Parsers, the metamodel library and value-only code recurse; a value nested thousands deep would
 * exhaust the stack. Derived from the element rule: an AAS level is two JSON levels (an element, its list of
 * children), so every document within `MAX_ELEMENT_DEPTH` fits, and one beyond it is refused with the rule's text.
 */
export const MAX_JSON_DEPTH = 2 * MAX_ELEMENT_DEPTH + AROUND;

/** XML element nesting the readers accept: two elements an AAS level in V3.0/V3.1 XML (the element, its `value`). */
export const MAX_XML_DEPTH = 2 * MAX_ELEMENT_DEPTH + AROUND;

/** The same for V2.0, V1.0 and V3.0 release candidate XML: three elements an AAS level (`submodelElement`, the kind, `value`). */
export const MAX_LEGACY_XML_DEPTH = 3 * MAX_ELEMENT_DEPTH + AROUND;

/** The rule as every refusal states it, first, so that a clipped message still names the limit. */
export const ELEMENT_DEPTH_RULE = `Submodel elements nest at most ${MAX_ELEMENT_DEPTH} levels deep`;

/** Whether `json` nests deeper than `max`; iterative, so it cannot overflow itself. */
export function nestsDeeperThan(json: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[json, 1]];
  while (stack.length) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth > max) return true;
    for (const inner of Object.values(value)) stack.push([inner, depth + 1]);
  }
  return false;
}

/** The modelTypes of submodel elements: what counts as an AAS level. */
const ELEMENT_TYPES = new Set([
  'AnnotatedRelationshipElement',
  'BasicEventElement',
  'Blob',
  'Capability',
  'Entity',
  'File',
  'MultiLanguageProperty',
  'Operation',
  'Property',
  'Range',
  'ReferenceElement',
  'RelationshipElement',
  'SubmodelElementCollection',
  'SubmodelElementList',
]);

/**
 * Where submodel elements in `json` (a submodel, an element, an environment) nest deeper than `max` AAS levels:
 * the idShort path of the first element beyond, its last steps (`…/A/B/C`); undefined when none does. `base` is the
 * level of `json`'s own elements' parent (an element posted into a collection at level 3: 3). Iterative.
 */
export function elementsNestDeeperThan(json: unknown, max: number = MAX_ELEMENT_DEPTH, base = 0): string | undefined {
  const stack: [unknown, number, string[]][] = [[json, base, []]];
  while (stack.length) {
    const [value, level, path] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    let inner = level;
    let steps = path;
    const object = value as Record<string, unknown>;
    if (!Array.isArray(value) && typeof object.modelType === 'string' && ELEMENT_TYPES.has(object.modelType)) {
      inner = level + 1;
      steps = [...path.slice(-4), typeof object.idShort === 'string' && object.idShort ? object.idShort : '?'];
      if (inner > max) return `${inner > 5 ? '…/' : ''}${steps.join('/')}`;
    }
    for (const child of Object.values(value)) if (child !== null && typeof child === 'object') stack.push([child, inner, steps]);
  }
  return undefined;
}
