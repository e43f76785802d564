import { notFound } from '../../src/graphql/errors';
import type { JsonObject } from '../../src/aas/model/parse';
import { Segment, childrenOf, formatIdShortPath } from '../../src/aas/submodels/element-tree';

/**
 * Navigation in a submodel's JSON tree by idShortPath, as the server's element writes once did it (read the whole
 * submodel, locate the element, change it in place): the oracle of the element-write tests.
 */

/** An element found by its path: the element and where it sits. */
export interface Located {
  element: JsonObject;
  parent: JsonObject;
  /** Position in the parent's child list. */
  position: number;
  segments: Segment[];
  /** The modelType of each step. */
  types: string[];
}

/** The element at `segments`; 404 when there is none (a missing idShort, an index out of range, a leaf). */
export function locate(submodel: JsonObject, segments: Segment[]): Located {
  let parent: JsonObject | undefined;
  let node = submodel;
  let position = -1;
  const types: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    const children = childrenOf(node);
    const list = children ? ((node[children.key] ?? []) as JsonObject[]) : [];
    if (!children || children.byIndex !== 'index' in segment) {
      throw notFound(`No element at '${formatIdShortPath(segments.slice(0, i + 1))}': ${describe(node, i === 0)} has no ${'index' in segment ? 'indexed' : 'named'} children.`);
    }
    position = 'index' in segment ? segment.index : list.findIndex((child) => child.idShort === segment.idShort);
    if (position < 0 || position >= list.length) {
      throw notFound(`No element at '${formatIdShortPath(segments.slice(0, i + 1))}'.`);
    }
    parent = node;
    node = list[position];
    types.push(node.modelType as string);
  }
  return { element: node, parent: parent!, position, segments, types };
}

function describe(node: JsonObject, isSubmodel: boolean): string {
  return isSubmodel ? 'the submodel' : `${node.modelType} '${node.idShort ?? ''}'`;
}
