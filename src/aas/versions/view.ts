import { BoundedMemo } from '../../common/bounded-memo';
import type { JsonObject } from '../model/parse';
import { originOf } from '../store/identifiable-store';
import { mapDownToV30 } from './map';
import { type AasVersion, neededVersion } from './needed';

/** What these functions need of a request's context (src/graphql/context.ts): its version, and the mark they set. */
export interface VersionedRequest {
  aasVersion?: AasVersion;
  versionMapped?: boolean;
}

/**
 * What a request reads, as the version it speaks sees it: through V3.1 (and GraphQL) a document as stored; through
 * V3.0 a document that needs V3.1 mapped down (`mapDownToV30`), and the context marked (`versionMapped`: the REST
 * answer carries `X-AAS-Version-Mapped: 3.1->3.0`). A document that needs V3.1 only for what V3.1 relaxed (a hyphen
 * in an idShort, say) is served as it is, and marked all the same: it is V3.1 content seen through V3.0.
 */

/** A stored text as V3.0 sees it: `text` itself, or its mapped form; `mapped` when it needs V3.1. */
interface V30Text {
  text: string;
  mapped: boolean;
}

/**
 * The V3.0 views of recent texts, by the text itself: read-cache hits hand out the same string again, whose hash V8
 * keeps, so a repeated read costs one lookup and no parse. Bounded by count and by the characters it holds (a
 * text it keeps is kept alive by it): the oldest entry goes first.
 */
const V30_TEXTS = new BoundedMemo<V30Text>(2048, 32 * 1024 * 1024);

/** `text` (an identifiable's AAS JSON) as V3.0 sees it. */
function v30Text(text: string): V30Text {
  const known = V30_TEXTS.get(text);
  if (known) return known;
  const json = JSON.parse(text) as JsonObject;
  let view: V30Text = { text, mapped: false };
  if (neededVersion(json) === '3.1') {
    const down = mapDownToV30(json);
    view = { text: down.mapped.length ? JSON.stringify(down.json) : text, mapped: true };
  }
  V30_TEXTS.set(text, view, text.length + (view.text === text ? 0 : view.text.length));
  return view;
}

/** An identifiable's stored AAS JSON text as the request's version sees it. */
export function textForVersion(ctx: VersionedRequest | undefined, text: string): string {
  if (!ctx || ctx.aasVersion !== '3.0') return text;
  const view = v30Text(text);
  if (view.mapped) ctx.versionMapped = true;
  return view.text;
}

/** The same for texts of a page. */
export function textsForVersion(ctx: VersionedRequest | undefined, texts: string[]): string[] {
  return ctx?.aasVersion === '3.0' ? texts.map((text) => textForVersion(ctx, text)) : texts;
}

/** An identifiable's AAS JSON (a shell or a submodel; anything else as it is) as the request's version sees it. */
export function jsonForVersion<T>(ctx: VersionedRequest | undefined, json: T): T {
  if (!ctx || ctx.aasVersion !== '3.0' || json === null || typeof json !== 'object') return json;
  // Read through the store's V3.0 view already: what it mapped is on the document's origin.
  const origin = originOf(json);
  if (origin?.mapped?.length) {
    ctx.versionMapped = true;
    return json;
  }
  // Its row (or the write that stored it) says it needs nothing of V3.1: no walk of it.
  if (origin?.needs === '3.0') return json;
  if (neededVersion(json) !== '3.1') return json;
  ctx.versionMapped = true;
  return mapDownToV30(json as JsonObject).json as T;
}

/**
 * A submodel element's AAS JSON as the request's version sees it: mapped as it would be inside a submodel. An
 * element that V3.0 does not see at all (a relationship without an end) is answered as it is, marked.
 */
export function elementForVersion<T>(ctx: VersionedRequest | undefined, element: T): T {
  if (!ctx || ctx.aasVersion !== '3.0' || element === null || typeof element !== 'object') return element;
  const holder = { modelType: 'Submodel', id: 'element', submodelElements: [element] } as unknown as JsonObject;
  if (neededVersion(holder) !== '3.1') return element;
  ctx.versionMapped = true;
  const mapped = (mapDownToV30(holder).json.submodelElements as unknown[] | undefined) ?? [];
  return (mapped.length === 1 ? mapped[0] : element) as T;
}

/**
 * Any object of the model the `json` field of GraphQL answers (a shell, a submodel, an element, asset information;
 * anything else has nothing V3.0 lacks) as the request's version sees it.
 */
export function objectForVersion<T>(ctx: VersionedRequest | undefined, object: T): T {
  if (!ctx || ctx.aasVersion !== '3.0' || object === null || typeof object !== 'object' || AS_STORED.has(object)) return object;
  const modelType = (object as JsonObject).modelType;
  if (modelType === 'AssetAdministrationShell' || modelType === 'Submodel') return jsonForVersion(ctx, object);
  if (typeof modelType === 'string') return modelType === 'ConceptDescription' ? jsonForVersion(ctx, object) : elementForVersion(ctx, object);
  if ('assetKind' in (object as JsonObject)) {
    // Asset information: mapped as it would be in its shell.
    const holder = { modelType: 'AssetAdministrationShell', id: 'shell', assetInformation: object } as unknown as JsonObject;
    if (neededVersion(holder) !== '3.1') return object;
    ctx.versionMapped = true;
    return mapDownToV30(holder).json.assetInformation as T;
  }
  return object;
}

/**
 * A document read through the store's view of the request's version, marked when it is V3.1 content (the store
 * mapped it down, or it holds what only V3.1's relaxed constraints allow): its parts (asset information, a
 * submodel's `$metadata` or `$value`) are answered without the document, whose origin says so.
 */
export function markedIfMapped<T extends object>(ctx: VersionedRequest | undefined, doc: T): T {
  const origin = originOf(doc);
  if (ctx?.aasVersion === '3.0' && (origin?.mapped?.length || origin?.needs31)) ctx.versionMapped = true;
  return doc;
}

/**
 * A text read through the store's view of the request's version (`getText`): marked when the store mapped it down,
 * or when it still holds what only V3.1 allows (seen as `textForVersion` sees it).
 */
export function viewedText(
  ctx: VersionedRequest | undefined,
  found: { text: string; etag: string; mapped?: boolean; mappedForV30?: string[] },
): { text: string; etag: string; mappedForV30?: string[] } {
  if (!ctx || ctx.aasVersion !== '3.0') return { text: found.text, etag: found.etag };
  if (found.mapped) ctx.versionMapped = true;
  return { text: textForVersion(ctx, found.text), etag: found.etag, mappedForV30: found.mappedForV30 };
}

/**
 * The version a GraphQL field reads or writes in: the `aasVersion` argument where a query gives one, else the
 * request's (the path's version for the REST API; V3.0 on `/graphql`, as before V3.1 was stored).
 */
export function versionOf(ctx: VersionedRequest, asked: AasVersion | null | undefined): AasVersion {
  return asked ?? ctx.aasVersion ?? '3.0';
}

/** The request as a field with its own `aasVersion` argument sees it: marks go to the request only in its own version. */
export function viewOf(ctx: VersionedRequest, asked: AasVersion | null | undefined): VersionedRequest {
  return asked && asked !== ctx.aasVersion ? { aasVersion: asked } : ctx;
}

/** Objects a field read or wrote through V3.1 in a request that speaks V3.0 (`seenAs`): their `json` answers them as they are. */
const AS_STORED = new WeakSet<object>();

/**
 * `value` (a document, a page of them, an element) as a field with an `aasVersion` argument answers it: where the
 * argument asks for V3.1 in a request that speaks V3.0, every object in it is answered as it is by the `json` field
 * (`objectForVersion`), not mapped down again.
 */
export function seenAs<T>(ctx: VersionedRequest, asked: AasVersion | null | undefined, value: T): T {
  if (versionOf(ctx, asked) !== '3.1' || ctx.aasVersion === '3.1') return value;
  const stack: unknown[] = [value];
  while (stack.length) {
    const next = stack.pop();
    if (next === null || typeof next !== 'object' || AS_STORED.has(next)) continue;
    AS_STORED.add(next);
    for (const child of Array.isArray(next) ? next : Object.values(next)) if (child !== null && typeof child === 'object') stack.push(child);
  }
  return value;
}
