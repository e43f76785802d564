import { jsonization, verification } from '@aas-core-works/aas-core3.0-typescript';
import { expect } from 'vitest';

/**
 * Reads a converted environment with the metamodel library: it must be exactly the official JSON form (nothing the
 * library would leave out or write differently). Returns its verification messages, shortened.
 */
export function readBack(environment: Record<string, unknown>): string[] {
  const parsed = jsonization.environmentFromJsonable(environment as jsonization.JsonValue);
  if (parsed.error) throw new Error(`${parsed.error.path.toString()}: ${parsed.error.message}`);
  expect(JSON.parse(JSON.stringify(jsonization.toJsonable(parsed.mustValue())))).toEqual(environment);
  return [...verification.verify(parsed.mustValue(), true)].map((e) => `${e.path.toString()}: ${e.message.slice(0, 30).trim()}`);
}
