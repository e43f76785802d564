import type { JsonObject } from './parse';

/**
 * Every File element in a document (a submodel, a shell, an element), however deep: in collections, lists,
 * entities' statements, annotations and operation variables alike.
 */
export function* fileElements(value: unknown): Generator<JsonObject> {
  if (Array.isArray(value)) {
    for (const item of value) yield* fileElements(item);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const object = value as JsonObject;
  if (object.modelType === 'File') yield object;
  for (const key in object) {
    const child = object[key];
    if (child !== null && typeof child === 'object') yield* fileElements(child);
  }
}

/** The child elements of an element, by where they are held (Operation variables hold one element each). */
const CHILDREN = ['value', 'statements', 'annotations'] as const;
const VARIABLES = ['inputVariables', 'outputVariables', 'inoutputVariables'] as const;

/**
 * Every File element of a submodel, with its idShortPath (`Documents.Document[0].File`; an Operation's variables
 * as `Operation.File`), for messages that name it.
 */
export function* fileElementsAt(submodel: JsonObject): Generator<{ element: JsonObject; path: string }> {
  yield* within(submodel.submodelElements, '', false);
}

function* within(elements: unknown, parent: string, byIndex: boolean): Generator<{ element: JsonObject; path: string }> {
  if (!Array.isArray(elements)) return;
  for (let i = 0; i < elements.length; i++) {
    const item: unknown = elements[i];
    if (item === null || typeof item !== 'object') continue;
    const element = item as JsonObject;
    // The path is made only for a File and for an element with children: most elements of a large submodel are neither.
    const pathOf = () => {
      const name = typeof element.idShort === 'string' ? element.idShort : `#${i}`;
      return byIndex ? `${parent}[${i}]` : parent ? `${parent}.${name}` : name;
    };
    if (element.modelType === 'File') yield { element, path: pathOf() };
    for (const key of CHILDREN) {
      if (key === 'value' && element.modelType !== 'SubmodelElementCollection' && element.modelType !== 'SubmodelElementList') continue;
      if (Array.isArray(element[key])) yield* within(element[key], pathOf(), element.modelType === 'SubmodelElementList');
    }
    for (const key of VARIABLES) {
      const variables = element[key];
      if (Array.isArray(variables)) yield* within(variables.map((v) => (v as JsonObject | null)?.value), pathOf(), false);
    }
  }
}
