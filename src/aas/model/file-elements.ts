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
  for (const child of Object.values(object)) if (child !== null && typeof child === 'object') yield* fileElements(child);
}
