import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { bodyOf, brief, categories, expectedItems, unexpectedOnlyItems } from '../support/corpus';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * Conformance of the shell repository against the aas-core3.0-testgen corpus: every valid shell is accepted
 * and read back unchanged, every invalid shell is rejected with 400 and leaves nothing behind.
 */

/** Counts observed in the corpus; the selection must not silently shrink below them. */
const MIN_EXPECTED_SHELLS = 751;
const MIN_UNEXPECTED_SHELLS = 550;

interface ShellCase {
  /** Path relative to the corpus root, e.g. `Unexpected/Invalid/PatternViolation/Resource/xyz.json`. */
  file: string;
  shell: unknown;
}

/** Every Expected environment is valid as a whole, so each of its shells is a valid shell. */
function expectedShells(): ShellCase[] {
  return expectedItems('assetAdministrationShells').map(({ file, item }) => ({ file, shell: item }));
}

/**
 * The corpus only says that an Unexpected environment as a whole is invalid, not where. Selection rule: an
 * Unexpected environment whose only content is exactly one shell (no submodels, no concept descriptions) has
 * its violation in that shell, as there is nowhere else for it to be. Environments that hold a shell beside
 * other parts would be ambiguous and are left out (the corpus has none today: the generator embeds each case
 * in one container, a shell, a submodel or a concept description).
 * Not by folder name: `Unexpected/<kind>/<violation>/Reference/` holds both shells and submodels. Not by
 * asking the metamodel library whether the shell is invalid: the server asks the same library, so that
 * would be circular (and the library accepts the UnexpectedAdditionalProperty cases).
 */
function unexpectedShells(): ShellCase[] {
  return unexpectedOnlyItems('assetAdministrationShells').map(({ file, item }) => ({ file, shell: item }));
}

const post = (api: string, shell: unknown) =>
  fetch(`${api}/shells`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(shell) });

/** Why `body` is not an AAS Result object for a 400, or undefined when it is one. */
function notA400Result(body: unknown): string | undefined {
  const messages = (body as { messages?: unknown })?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return `no Result messages in ${brief(body)}`;
  const wellFormed = messages.every(
    (m) =>
      m?.code === '400' &&
      m.messageType === 'Error' &&
      typeof m.text === 'string' &&
      m.text.length > 0 &&
      typeof m.timestamp === 'string' &&
      typeof m.correlationId === 'string',
  );
  return wellFormed ? undefined : `malformed Result ${brief(body)}`;
}

/**
 * Requests go one at a time into a tenant of the test's own that each case leaves empty, as ids repeat across
 * corpus files. Sequential is as fast as 8 in flight on a 2-core machine (about 8 s for both tests).
 */
let server: TestServer;
const freshTenantApi = async () => server.api((await server.createTenant({ prefix: 'corpus' })).name);

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('shell repository against the aas-core3.0-testgen corpus', () => {
  it('accepts every Expected shell and returns it unchanged', async () => {
    const cases = expectedShells();
    expect(cases.length).toBeGreaterThanOrEqual(MIN_EXPECTED_SHELLS);

    const api = await freshTenantApi();
    const problems: string[] = [];
    for (const { file, shell } of cases) {
      const created = await post(api, shell);
      if (created.status !== 201) {
        problems.push(`${file}: POST ${created.status} ${brief(await bodyOf(created))}`);
        continue;
      }
      const url = `${api}/shells/${b64((shell as { id: string }).id)}`;
      const got = await fetch(url);
      const gotBody = await bodyOf(got);
      if (got.status !== 200) problems.push(`${file}: GET ${got.status} ${brief(gotBody)}`);
      else if (!isDeepStrictEqual(gotBody, shell)) problems.push(`${file}: GET returned a different shell ${brief(gotBody)}`);
      // Ids repeat across corpus files: leave the tenant empty for the next file.
      const deleted = await fetch(url, { method: 'DELETE' });
      if (deleted.status !== 204) problems.push(`${file}: DELETE ${deleted.status}`);
    }

    expect(problems.length, problems.slice(0, 20).join('\n')).toBe(0);
    console.info(`${cases.length} corpus shells accepted and round-tripped: ${JSON.stringify(categories(cases))}`);
  });

  it('rejects every Unexpected shell with 400 and stores nothing', async () => {
    const cases = unexpectedShells();
    expect(cases.length).toBeGreaterThanOrEqual(MIN_UNEXPECTED_SHELLS);

    const api = await freshTenantApi();
    const problems: string[] = [];
    for (const { file, shell } of cases) {
      const res = await post(api, shell);
      const body = await bodyOf(res);
      const problem = res.status === 400 ? notA400Result(body) : `POST ${res.status} ${brief(body)}`;
      if (problem) problems.push(`${file}: ${problem}`);
      // The tenant is empty before each file, so after a rejection it must still be empty. This also
      // covers shells whose id is missing or not a string, which cannot be read back by id.
      const list = await fetch(`${api}/shells`);
      expect(list.status).toBe(200);
      const stored = ((await list.json()) as { result: { id: string }[] }).result;
      if (stored.length > 0) problems.push(`${file}: stored after POST ${res.status}`);
      for (const { id } of stored) await fetch(`${api}/shells/${b64(id)}`, { method: 'DELETE' });
    }

    expect(problems.length, problems.slice(0, 20).join('\n')).toBe(0);
    console.info(`${cases.length} corpus shells rejected with 400: ${JSON.stringify(categories(cases))}`);
  });
});
