import type { JsonObject } from '../model/parse';

/** The three lists of an environment, each an async sequence: the writers stream them. */
export interface EnvironmentParts {
  assetAdministrationShells: AsyncIterable<JsonObject>;
  submodels: AsyncIterable<JsonObject>;
  conceptDescriptions: AsyncIterable<JsonObject>;
}
