import { isDeepStrictEqual } from 'node:util';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { absentAnswer, bodyOf, brief, categories, expectedItems, notAResult, send, unexpectedOnlyItems } from '../support/corpus';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * Conformance of the concept description repository against the aas-core3.0-testgen corpus: every valid
 * concept description is accepted and read back unchanged, every invalid one is rejected with 400 and leaves
 * nothing behind.
 */

/** Counts observed in the corpus; the selection must not silently shrink below them. */
const MIN_EXPECTED_CONCEPT_DESCRIPTIONS = 12;
const MIN_UNEXPECTED_CONCEPT_DESCRIPTIONS = 35;

type Json = Record<string, unknown>;

interface ConceptDescriptionCase {
  /** Path relative to the corpus root, e.g. `Expected/ConceptDescription/maximal.json`. */
  file: string;
  conceptDescription: Json;
}

/** Every Expected environment is valid as a whole, so each of its concept descriptions is valid. */
function expectedConceptDescriptions(): ConceptDescriptionCase[] {
  return expectedItems('conceptDescriptions').map(({ file, item }) => ({ file, conceptDescription: item }));
}

/**
 * An Unexpected environment whose only content is exactly one concept description has its violation in it:
 * there is nowhere else for it to be. Not by asking the metamodel library, which the server asks too.
 */
function unexpectedConceptDescriptions(): ConceptDescriptionCase[] {
  return unexpectedOnlyItems('conceptDescriptions').map(({ file, item }) => ({ file, conceptDescription: item }));
}

/**
 * What the server must return: the canonical JSON as the metamodel library writes it. The corpus is canonical
 * already (then this is the document as sent); the library only stands in where it is not.
 */
function canonical(conceptDescription: Json): Json {
  const read = jsonization.conceptDescriptionFromJsonable(conceptDescription as jsonization.JsonValue).mustValue();
  const written = jsonization.toJsonable(read) as Json;
  return isDeepStrictEqual(written, conceptDescription) ? conceptDescription : written;
}

/** The corpus has a few dozen concept descriptions: one tenant per test, cases one after the other. */
let server: TestServer;
const freshTenantApi = async () => server.api((await server.createTenant({ prefix: 'corpus-cd' })).name);

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('concept description repository against the aas-core3.0-testgen corpus', () => {
  it('accepts every Expected concept description and returns it unchanged', async () => {
    const cases = expectedConceptDescriptions();
    expect(cases.length).toBeGreaterThanOrEqual(MIN_EXPECTED_CONCEPT_DESCRIPTIONS);

    const api = await freshTenantApi();
    const problems: string[] = [];
    for (const { file, conceptDescription } of cases) {
      const expected = canonical(conceptDescription);
      const url = `${api}/concept-descriptions/${b64(conceptDescription.id as string)}`;
      const created = await send('POST', `${api}/concept-descriptions`, conceptDescription);
      const createdBody = await bodyOf(created);
      if (created.status !== 201) {
        problems.push(`${file}: POST /concept-descriptions ${created.status} ${brief(createdBody)}`);
        continue;
      }
      if (created.headers.get('location') !== url) problems.push(`${file}: POST Location ${created.headers.get('location')}, expected ${url}`);
      if (!isDeepStrictEqual(createdBody, expected)) problems.push(`${file}: POST returned a different concept description ${brief(createdBody)}`);
      const got = await send('GET', url);
      const gotBody = await bodyOf(got);
      if (got.status !== 200) problems.push(`${file}: GET ${got.status} ${brief(gotBody)}`);
      else if (!isDeepStrictEqual(gotBody, expected)) problems.push(`${file}: GET returned a different concept description ${brief(gotBody)}`);
      // Ids repeat across corpus files: leave the tenant empty for the next file.
      const deleted = await send('DELETE', url);
      if (deleted.status !== 204) problems.push(`${file}: DELETE ${deleted.status} ${brief(await bodyOf(deleted))}`);
    }

    expect(problems.length, problems.slice(0, 20).join('\n')).toBe(0);
    console.info(`${cases.length} corpus concept descriptions accepted and round-tripped: ${JSON.stringify(categories(cases))}`);
  });

  it('rejects every Unexpected concept description with 400 and stores nothing', async () => {
    const cases = unexpectedConceptDescriptions();
    expect(cases.length).toBeGreaterThanOrEqual(MIN_UNEXPECTED_CONCEPT_DESCRIPTIONS);

    const api = await freshTenantApi();
    const problems: string[] = [];
    for (const { file, conceptDescription } of cases) {
      const res = await send('POST', `${api}/concept-descriptions`, conceptDescription);
      const body = await bodyOf(res);
      const problem = res.status === 400 ? notAResult(res, body, 400) : `POST /concept-descriptions ${res.status} ${brief(body)}`;
      if (problem) problems.push(`${file}: ${problem}`);
      // The tenant is empty before each file, so after a rejection the id must be unknown; the list covers ids
      // that cannot be put in a path (missing, empty, not a string).
      const id = (conceptDescription as Json | null)?.id;
      if (typeof id === 'string' && id !== '') {
        const got = await send('GET', `${api}/concept-descriptions/${b64(id)}`);
        const gotBody = await bodyOf(got);
        const notFound = absentAnswer(got, gotBody, id);
        if (notFound) problems.push(`${file}: GET by id after POST ${res.status}: ${notFound}`);
      }
      const list = await send('GET', `${api}/concept-descriptions`);
      expect(list.status).toBe(200);
      const stored = ((await list.json()) as { result: { id: string }[] }).result;
      if (stored.length > 0) problems.push(`${file}: stored after POST ${res.status}`);
      for (const { id: storedId } of stored) await send('DELETE', `${api}/concept-descriptions/${b64(storedId)}`);
    }

    expect(problems.length, problems.slice(0, 20).join('\n')).toBe(0);
    console.info(`${cases.length} corpus concept descriptions rejected with 400: ${JSON.stringify(categories(cases))}`);
  });
});
