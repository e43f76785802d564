import type { JsonObject } from '../model/parse';

/** A descriptor or a list of asset links as the registry services hand it out: the JSON and its entity tag. */
export interface Stored {
  json: JsonObject;
  etag: string;
}

/** A name and value of an asset id (a SpecificAssetId's, or `globalAssetId` with the global asset id). */
export interface AssetIdPair {
  name: string;
  value: string;
}

/** Filters of shell descriptor lists; absent and null both mean "no condition". */
export interface DescriptorFilter {
  assetKind?: string | null;
  assetType?: string | null;
  /** Descriptors carrying all of these asset ids. */
  assetIds?: AssetIdPair[] | null;
  /** Descriptors with a submodel descriptor of this semanticId (a filter key, `model/reference-keys`). */
  submodelSemanticKey?: string | null;
}

/** Only the name and value of each asset id: what lookups compare (AAS Part 2, discovery). */
export function assetIdPairs(ids: readonly AssetIdPair[]): AssetIdPair[] {
  return ids.map(({ name, value }) => ({ name, value }));
}
