import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { ELEMENT_DEPTH_RULE, MAX_ELEMENT_DEPTH, elementsNestDeeperThan } from '../../common/json-depth';
import { badRequest } from '../../graphql/errors';
import { JsonObject, Violation, introduced, readInstance, refuseViolations, violationsOf } from '../model/parse';
import { type AasVersion, V31_RULE, readElementFor, readableByV30 } from '../versions';
import type { ElementEdit, ElementNode } from '../store/element-edit';
import { childrenOf } from './element-tree';

/**
 * Verification of an element write by what it changes. The element written is read and verified whole by the
 * metamodel library; what reaches beyond it is checked in its place, against its parent and its siblings only:
 *
 * - the depth rule (`MAX_ELEMENT_DEPTH`), counted from the submodel: the parent's level plus the element's own;
 * - the parent's invariants on its children, as the library checks them on the parent's own JSON with the element
 *   as its only child: idShort required outside a list (AASd-117), none inside one (AASd-120), a list's
 *   semanticIdListElement (AASd-107), typeValueListElement (AASd-108) and valueTypeListElement (AASd-109), no
 *   TemplateQualifier on a top-level element of a submodel that is not a template (AASd-129), an annotation being a
 *   data element;
 * - against the siblings, in the database: a list's children's semanticIds identical (AASd-114) and idShorts
 *   unique among siblings (AASd-022, by `ElementEdit.hasChild`, in the service).
 *
 * A violation counts only where the write introduces it: where it replaces an element that had the same violation
 * in the same place (content stored by an import with warnings), the write goes through. The rest of the submodel
 * is neither read nor verified.
 */

const PARENT_READERS: Record<string, (json: jsonization.JsonValue) => ReturnType<typeof jsonization.submodelFromJsonable | typeof jsonization.submodelElementFromJsonable>> = {
  Submodel: jsonization.submodelFromJsonable,
  SubmodelElementCollection: jsonization.submodelElementCollectionFromJsonable,
  SubmodelElementList: jsonization.submodelElementListFromJsonable,
  Entity: jsonization.entityFromJsonable,
  AnnotatedRelationshipElement: jsonization.annotatedRelationshipElementFromJsonable,
};

/** The element without its child elements: what its parent's invariants look at. */
function ownPart(element: JsonObject): JsonObject {
  const children = childrenOf(element);
  if (!children) return element;
  const { [children.key]: _children, ...own } = element;
  return own;
}

/**
 * The violations of `parent`'s own invariants with `element` (or none) as its only child, by the constraints of
 * `version` (V3.1: a list's items may have idShorts). What V3.1 made optional is filled in for the reading only.
 */
function placeViolations(parent: ElementNode, element: JsonObject | null, version: AasVersion): Violation[] {
  const key = childrenOf({ modelType: parent.type })!.key;
  const { [key]: _children, ...own } = parent.json;
  const json = readableByV30(element ? { ...own, [key]: [readableByV30(ownPart(element))] } : own);
  return violationsOf(readInstance(parent.type, PARENT_READERS[parent.type], json), false, version === '3.1' ? V31_RULE : undefined);
}

const keyValues = (reference: unknown) => JSON.stringify(((reference as { keys?: { value?: unknown }[] } | undefined)?.keys ?? []).map((key) => key.value));

/** AASd-114: whether `element`'s semanticId differs (by its keys' values) from one its list siblings have. */
function differsFromSiblings(element: JsonObject | null, siblings: JsonObject[]): boolean {
  if (!element?.semanticId) return false;
  const own = keyValues(element.semanticId);
  return siblings.some((sibling) => keyValues(sibling) !== own);
}

const AASD_114: Violation = {
  key: 'AASd-114',
  text: '$: Constraint AASd-114: If two first level child elements have a semantic ID then they shall be identical.',
};

/**
 * 400 when `after` in its place under `parent` has a violation that `before` (the element it replaces there, null
 * for a new one) did not have: of its own (`ownAfter`, as read) or of its place. Says whether the verdict looked at
 * what `before` holds (only where `after` has a violation to excuse): a write made without the lock then depends on it.
 * `version`: the metamodel whose constraints judge the write (the version it comes through).
 */
export async function refuseIntroduced(
  edit: ElementEdit,
  parent: ElementNode,
  after: { doc: JsonObject; violations: Violation[] },
  before: { element: JsonObject; node: ElementNode } | null,
  version: AasVersion = '3.0',
): Promise<boolean> {
  // The element rule counts from the submodel: the element's own depth starts at its parent's.
  const tooDeep = elementsNestDeeperThan(after.doc, MAX_ELEMENT_DEPTH, parent.ord.length);
  if (tooDeep) throw badRequest(`${ELEMENT_DEPTH_RULE}; in its place the element nests them deeper (at ${tooDeep}).`);
  const own = after.violations.length && before ? introduced(after.violations, readElementFor(version, before.element).violations) : after.violations;
  const placed = placeViolations(parent, after.doc, version);
  const place = placed.length ? introduced(placed, placeViolations(parent, before?.element ?? null, version)) : [];
  const found = [...own, ...place];
  let consulted = before !== null && (after.violations.length > 0 || placed.length > 0);
  if (parent.type === 'SubmodelElementList' && after.doc.semanticId) {
    const siblings = await edit.childSemanticIds(parent, before?.node);
    if (differsFromSiblings(after.doc, siblings)) {
      consulted ||= before !== null;
      if (!differsFromSiblings(before?.element ?? null, siblings)) found.push(AASD_114);
    }
  }
  refuseViolations('SubmodelElement', found);
  return consulted;
}

/** AASd-022 for an element renamed in place (outside a list): 400 when a sibling has its new idShort. */
export async function refuseDuplicateIdShort(edit: ElementEdit, parent: ElementNode, idShort: unknown): Promise<void> {
  if (typeof idShort === 'string' && (await edit.hasChild(parent, idShort))) {
    throw badRequest(
      `Invalid SubmodelElement: Constraint AASd-022: ID-short of non-identifiable referables within the same name space shall be unique (case-sensitive); '${idShort}' is taken.`,
    );
  }
}
