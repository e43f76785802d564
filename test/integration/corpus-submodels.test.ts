import { isDeepStrictEqual } from 'node:util';
import { jsonization } from '@aas-core-works/aas-core3.0-typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { absentAnswer, bodyOf, brief, categories, expectedItems, notAResult, send, unexpectedOnlyItems } from '../support/corpus';
import { TestServer, b64, startTestServer } from '../support/server';

/**
 * Conformance of the submodel repository against the aas-core3.0-testgen corpus: every valid submodel is
 * accepted and read back unchanged, survives a value-only round trip (GET `$value`, PATCH it back) unchanged,
 * and every element it holds can be read by its idShortPath; every invalid submodel is rejected with 400 and
 * leaves nothing behind.
 */

/** Counts observed in the corpus; the selection must not silently shrink below them. */
const MIN_EXPECTED_SUBMODELS = 1795;
const MIN_UNEXPECTED_SUBMODELS = 1409;
/** Element paths in the Expected submodels (all levels); the navigation check must not silently shrink. */
const MIN_ELEMENT_PATHS = 1327;

/**
 * Requests in flight at once. Almost every corpus submodel has the same id, so each worker has a tenant of its
 * own that every case leaves empty again; the cases of one worker run one after the other. Measured on 2 cores
 * against PostgreSQL (server pool of 10): 1 worker 117 s, 4 workers 39 s, 8 workers 25 s, 12 workers 30 s.
 */
const WORKERS = 8;

type Json = Record<string, unknown>;

interface SubmodelCase {
  /** Path relative to the corpus root, e.g. `Expected/Property/minimal.json`. */
  file: string;
  submodel: Json;
}

/** Every Expected environment is valid as a whole, so each of its submodels is a valid submodel. */
function expectedSubmodels(): SubmodelCase[] {
  return expectedItems('submodels').map(({ file, item }) => ({ file, submodel: item }));
}

/**
 * The corpus only says that an Unexpected environment as a whole is invalid, not where. An Unexpected
 * environment whose only content is exactly one submodel has its violation in that submodel: there is nowhere
 * else for it to be. Not by folder name (`Unexpected/<kind>/<violation>/Reference/` holds shells and submodels),
 * and not by asking the metamodel library, which the server asks too.
 */
function unexpectedSubmodels(): SubmodelCase[] {
  return unexpectedOnlyItems('submodels').map(({ file, item }) => ({ file, submodel: item }));
}

/**
 * What the server must return for `submodel`: its canonical JSON as the metamodel library writes it. The corpus
 * is canonical already (then this is the document as sent); the library only stands in where it is not.
 */
function canonical(submodel: Json): Json {
  const written = jsonization.toJsonable(jsonization.submodelFromJsonable(submodel as jsonization.JsonValue).mustValue()) as Json;
  return isDeepStrictEqual(written, submodel) ? submodel : written;
}

// ---------------------------------------------------------------------------------------------------------------
// Element navigation of our own, independent of the server's: which property holds a node's children.

const CHILDREN: Record<string, { key: string; byIndex: boolean }> = {
  Submodel: { key: 'submodelElements', byIndex: false },
  SubmodelElementCollection: { key: 'value', byIndex: false },
  SubmodelElementList: { key: 'value', byIndex: true },
  Entity: { key: 'statements', byIndex: false },
  AnnotatedRelationshipElement: { key: 'annotations', byIndex: false },
};

/** The idShortPath of every element in `node` (all levels, depth first). */
function elementPaths(node: Json, prefix = ''): string[] {
  const children = CHILDREN[node.modelType as string];
  if (!children) return [];
  return ((node[children.key] ?? []) as Json[]).flatMap((child, i) => {
    const own = children.byIndex ? `${prefix}[${i}]` : prefix ? `${prefix}.${child.idShort as string}` : (child.idShort as string);
    return [own, ...elementPaths(child, own)];
  });
}

/**
 * `node` as the server returns it without BLOB values: every Blob, wherever it is (also in an operation
 * variable), without its `value`. A copy; `node` is left as it is.
 */
function withoutBlobValues<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutBlobValues) as T;
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(([key]) => !((node as Json).modelType === 'Blob' && key === 'value'));
  return Object.fromEntries(entries.map(([key, value]) => [key, withoutBlobValues(value)])) as T;
}

/** The element at `idShortPath` in `submodel`, or undefined when there is none. */
function elementAt(submodel: Json, idShortPath: string): Json | undefined {
  let node: Json | undefined = submodel;
  for (const [, idShort, index] of idShortPath.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    const children = node && CHILDREN[node.modelType as string];
    if (!node || !children || children.byIndex !== (index !== undefined)) return undefined;
    const list = (node[children.key] ?? []) as Json[];
    node = index !== undefined ? list[Number(index)] : list.find((child) => child.idShort === idShort);
  }
  return node === submodel ? undefined : node;
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP helpers

let server: TestServer;
const freshTenantApi = async () => server.api((await server.createTenant({ prefix: 'corpus-sm' })).name);

/** Runs `check` on every case, `WORKERS` at a time, each worker in a tenant of its own; `done` runs per worker. */
async function inWorkerTenants<T>(cases: T[], check: (api: string, item: T) => Promise<void>, done?: (api: string) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      const api = await freshTenantApi();
      while (next < cases.length) await check(api, cases[next++]);
      await done?.(api);
    }),
  );
}

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

describe('submodel repository against the aas-core3.0-testgen corpus: Expected submodels', () => {
  const cases = expectedSubmodels();
  /** Problems found per aspect, by one pass over the corpus (each case is posted once and checked throughout). */
  const problems = { stored: [] as string[], valueOnly: [] as string[], paths: [] as string[] };
  const checked = { stored: 0, withoutBlobValue: 0, valueOnly: 0, valueOnlyWithoutBlob: 0, paths: 0, pathsWithoutBlob: 0, multiPagePathLists: 0 };
  let elapsed = 0;

  /** POST, GET; value-only round trips; every element by idShortPath; DELETE (ids repeat across files). */
  async function check(api: string, { file, submodel }: SubmodelCase) {
    const expected = canonical(submodel);
    const url = `${api}/submodels/${b64(submodel.id as string)}`;
    const notChecked = (why: string) => {
      problems.valueOnly.push(`${file}: not checked, ${why}`);
      problems.paths.push(`${file}: not checked, ${why}`);
    };

    const created = await send('POST', `${api}/submodels`, submodel);
    const createdBody = await bodyOf(created);
    if (created.status !== 201) {
      problems.stored.push(`${file}: POST /submodels ${created.status} ${brief(createdBody)}`);
      notChecked(`POST ${created.status}`);
      return;
    }
    if (created.headers.get('location') !== url) problems.stored.push(`${file}: POST Location ${created.headers.get('location')}, expected ${url}`);
    if (!isDeepStrictEqual(createdBody, expected)) problems.stored.push(`${file}: POST returned a different submodel ${brief(createdBody)}`);

    /** The stored submodel, or a problem for `aspect` when it is not exactly the expected one. */
    const stillUnchanged = async (aspect: 'stored' | 'valueOnly', after: string) => {
      const got = await send('GET', `${url}?extent=withBlobValue`);
      const gotBody = await bodyOf(got);
      if (got.status !== 200) problems[aspect].push(`${file}: GET ${after} ${got.status} ${brief(gotBody)}`);
      else if (!isDeepStrictEqual(gotBody, expected)) problems[aspect].push(`${file}: GET ${after} returned a different submodel ${brief(gotBody)}`);
      else return true;
      return false;
    };

    if ((await stillUnchanged('stored', 'after POST')) && (await blobValuesLeftOut(file, url, expected))) {
      checked.stored++;
      await checkValueOnly(file, url, stillUnchanged);
      await checkPaths(file, url, expected);
    } else {
      notChecked('the stored submodel differs');
    }

    const deleted = await send('DELETE', url);
    if (deleted.status !== 204) problems.stored.push(`${file}: DELETE ${deleted.status} ${brief(await bodyOf(deleted))}`);
  }

  /**
   * Without `extent` (default withoutBlobValue) the submodel comes without its Blobs' values. Only asked where
   * the submodel has a Blob value to leave out; elsewhere it would be the GET with BLOB values again.
   */
  async function blobValuesLeftOut(file: string, url: string, expected: Json) {
    const withoutBlob = withoutBlobValues(expected);
    if (isDeepStrictEqual(withoutBlob, expected)) return true;
    const got = await send('GET', url);
    const gotBody = await bodyOf(got);
    if (got.status !== 200) problems.stored.push(`${file}: GET without extent ${got.status} ${brief(gotBody)}`);
    else if (!isDeepStrictEqual(gotBody, withoutBlob)) problems.stored.push(`${file}: GET without extent returned ${brief(gotBody)}, expected ${brief(withoutBlob)}`);
    else {
      checked.withoutBlobValue++;
      return true;
    }
    return false;
  }

  /**
   * GET `$value` with and without BLOB values and PATCH each back as it came: the submodel must not change
   * (a value-only body without a Blob's value leaves the stored value). Without BLOB values the body differs
   * only when the submodel holds a Blob with a value; otherwise that PATCH would repeat the first.
   */
  async function checkValueOnly(file: string, url: string, stillUnchanged: (aspect: 'valueOnly', after: string) => Promise<boolean>) {
    const read = async (query: string) => {
      const res = await send('GET', `${url}/$value${query}`);
      const body = await bodyOf(res);
      if (res.status !== 200 || body === null || typeof body !== 'object' || Array.isArray(body)) {
        problems.valueOnly.push(`${file}: GET /$value${query} ${res.status} ${brief(body)}`);
        return undefined;
      }
      return body;
    };
    const write = async (value: unknown, label: string) => {
      const res = await send('PATCH', `${url}/$value`, value);
      if (res.status !== 204) {
        problems.valueOnly.push(`${file}: PATCH /$value (${label}) ${res.status} ${brief(await bodyOf(res))} for body ${brief(value)}`);
        return false;
      }
      return stillUnchanged('valueOnly', `after PATCH /$value (${label})`);
    };

    const withBlob = await read('?extent=withBlobValue');
    const withoutBlob = await read('');
    if (withBlob === undefined || withoutBlob === undefined) return;
    if (!(await write(withBlob, 'withBlobValue'))) return;
    if (!isDeepStrictEqual(withBlob, withoutBlob)) {
      if (!(await write(withoutBlob, 'withoutBlobValue'))) return;
      checked.valueOnlyWithoutBlob++;
    }
    checked.valueOnly++;
  }

  /**
   * Every page of a paged path list, following the cursors: each page but the last full, the last without a
   * cursor. Undefined, with a problem, when it is not so. Limit 1, as corpus submodels have few paths each.
   */
  async function pagedPaths(file: string, listUrl: string): Promise<string[] | undefined> {
    const limit = 1;
    const all: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      pages++;
      const route = `${listUrl}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await send('GET', route);
      const body = (await bodyOf(res)) as { result?: unknown; paging_metadata?: { cursor?: string } } | null;
      const result = body?.result;
      if (res.status !== 200 || !Array.isArray(result) || !result.every((p) => typeof p === 'string') || result.length > limit) {
        problems.paths.push(`${file}: GET ${route} ${res.status} ${brief(body)}`);
        return undefined;
      }
      cursor = body?.paging_metadata?.cursor;
      if (cursor !== undefined && result.length < limit) {
        problems.paths.push(`${file}: GET ${route} gave ${result.length} paths and a cursor`);
        return undefined;
      }
      all.push(...(result as string[]));
      // A cursor that leads back would page forever; no corpus submodel has this many paths.
      if (cursor !== undefined && all.length > 10_000) {
        problems.paths.push(`${file}: GET ${listUrl} still gives a cursor after ${all.length} paths`);
        return undefined;
      }
    } while (cursor !== undefined);
    if (pages > 1) checked.multiPagePathLists++;
    return all;
  }

  /** `$path` lists exactly the submodel's element paths, and each path reads the element found there. */
  async function checkPaths(file: string, url: string, expected: Json) {
    const res = await send('GET', `${url}/$path`);
    const listed = await bodyOf(res);
    if (res.status !== 200 || !Array.isArray(listed) || !listed.every((p) => typeof p === 'string')) {
      problems.paths.push(`${file}: GET /$path ${res.status} ${brief(listed)}`);
      return;
    }
    const own = elementPaths(expected);
    if (!isDeepStrictEqual([...listed].sort(), [...own].sort())) {
      problems.paths.push(`${file}: GET /$path listed ${brief(listed)}, the submodel has ${brief(own)}`);
    }
    // The paged list (GetPathItemsResult), followed cursor by cursor, holds the same paths in the same order.
    const paged = await pagedPaths(file, `${url}/submodel-elements/$path`);
    if (paged && !isDeepStrictEqual(paged, listed)) {
      problems.paths.push(`${file}: GET /submodel-elements/$path gave ${brief(paged)} over its pages, GET /$path ${brief(listed)}`);
    }
    const readsAs = async (idShortPath: string, query: string, element: Json) => {
      const route = `/submodel-elements/${encodeURIComponent(idShortPath)}${query}`;
      const got = await send('GET', `${url}${route}`);
      const gotBody = await bodyOf(got);
      if (got.status !== 200) problems.paths.push(`${file}: GET ${route} ${got.status} ${brief(gotBody)}`);
      else if (!isDeepStrictEqual(gotBody, element)) problems.paths.push(`${file}: GET ${route} returned ${brief(gotBody)}, expected ${brief(element)}`);
      else return true;
      return false;
    };
    for (const idShortPath of listed as string[]) {
      const element = elementAt(expected, idShortPath);
      if (element === undefined) {
        problems.paths.push(`${file}: '${idShortPath}' is listed by /$path, but there is no element there`);
        continue;
      }
      if (!(await readsAs(idShortPath, '?extent=withBlobValue', element))) continue;
      checked.paths++;
      // Without extent, as for the submodel: asked only where there is a Blob value to leave out.
      const withoutBlob = withoutBlobValues(element);
      if (!isDeepStrictEqual(withoutBlob, element) && (await readsAs(idShortPath, '', withoutBlob))) checked.pathsWithoutBlob++;
    }
  }

  beforeAll(async () => {
    expect(cases.length).toBeGreaterThanOrEqual(MIN_EXPECTED_SUBMODELS);
    const started = performance.now();
    await inWorkerTenants(cases, check);
    elapsed = performance.now() - started;
    // Embedded PostgreSQL (PGlite) runs one statement at a time: several times slower than a PostgreSQL server.
  }, 600_000);

  it('accepts every Expected submodel and returns it unchanged', () => {
    expect(problems.stored.length, problems.stored.slice(0, 20).join('\n')).toBe(0);
    expect(checked.stored).toBe(cases.length);
    expect(checked.withoutBlobValue).toBeGreaterThan(0);
    console.info(
      `${checked.stored} corpus submodels accepted and round-tripped (${checked.withoutBlobValue} also read without BLOB values) ` +
        `in ${Math.round(elapsed)} ms for all three aspects: ${JSON.stringify(categories(cases))}`,
    );
  });

  it('leaves every Expected submodel unchanged when its $value is patched back as read', () => {
    expect(problems.valueOnly.length, problems.valueOnly.slice(0, 20).join('\n')).toBe(0);
    expect(checked.valueOnly).toBe(cases.length);
    expect(checked.valueOnlyWithoutBlob).toBeGreaterThan(0);
    console.info(`${checked.valueOnly} value-only round trips (${checked.valueOnlyWithoutBlob} also without BLOB values)`);
  });

  it('lists every element path of every Expected submodel and reads each element by its idShortPath', () => {
    expect(problems.paths.length, problems.paths.slice(0, 20).join('\n')).toBe(0);
    expect(checked.paths).toBeGreaterThanOrEqual(MIN_ELEMENT_PATHS);
    expect(checked.pathsWithoutBlob).toBeGreaterThan(0);
    expect(checked.multiPagePathLists).toBeGreaterThan(0);
    console.info(
      `${checked.paths} elements read by idShortPath (${checked.pathsWithoutBlob} also without BLOB values); ` +
        `${checked.multiPagePathLists} paged path lists took more than one page`,
    );
  });
});

describe('submodel repository against the aas-core3.0-testgen corpus: Unexpected submodels', () => {
  it('rejects every Unexpected submodel with 400 and stores nothing', async () => {
    const cases = unexpectedSubmodels();
    expect(cases.length).toBeGreaterThanOrEqual(MIN_UNEXPECTED_SUBMODELS);
    const problems: string[] = [];
    const listOf = async (api: string) => {
      const list = await send('GET', `${api}/submodels`);
      expect(list.status).toBe(200);
      return ((await list.json()) as { result: { id: string }[] }).result;
    };

    const started = performance.now();
    await inWorkerTenants(
      cases,
      async (api, { file, submodel }) => {
        const res = await send('POST', `${api}/submodels`, submodel);
        const body = await bodyOf(res);
        const problem = res.status === 400 ? notAResult(res, body, 400) : `POST /submodels ${res.status} ${brief(body)}`;
        if (problem) problems.push(`${file}: ${problem}`);
        // The worker's tenant is empty, so after a rejection the id must be unknown; an id that cannot be put
        // in a path (missing, empty, not a string) is checked on the list, as is every tenant at the end.
        const id = (submodel as Json | null)?.id;
        if (typeof id === 'string' && id !== '') {
          const got = await send('GET', `${api}/submodels/${b64(id)}`);
          const gotBody = await bodyOf(got);
          const notFound = absentAnswer(got, gotBody, id);
          if (notFound) problems.push(`${file}: GET by id after POST ${res.status}: ${notFound}`);
        } else if ((await listOf(api)).length > 0) {
          problems.push(`${file}: stored after POST ${res.status}`);
        }
        if (res.status === 201) await send('DELETE', `${api}/submodels/${b64(String(id))}`);
      },
      async (api) => {
        const stored = await listOf(api);
        if (stored.length > 0) problems.push(`a worker's tenant holds ${brief(stored.map((s) => s.id))} after rejections only`);
      },
    );
    const elapsed = performance.now() - started;

    expect(problems.length, problems.slice(0, 20).join('\n')).toBe(0);
    console.info(`${cases.length} corpus submodels rejected with 400 in ${Math.round(elapsed)} ms: ${JSON.stringify(categories(cases))}`);
  }, 300_000);
});

/**
 * The corpus has Blobs only as submodel elements of their own. A Blob can also be the value of an operation
 * variable; without BLOB values it must lose its value there too, as `withoutBlobValues` above has it.
 */
describe('submodel repository: a shape the corpus lacks', () => {
  it('leaves out the value of a Blob inside an operation variable without BLOB values', async () => {
    const api = await freshTenantApi();
    const blob = { modelType: 'Blob', idShort: 'blob', contentType: 'text/plain', value: 'aGVsbG8=' };
    const operation = { modelType: 'Operation', idShort: 'op', inputVariables: [{ value: blob }] };
    const submodel = { modelType: 'Submodel', id: 'urn:corpus-gap:operation-blob', submodelElements: [operation] };
    expect((await send('POST', `${api}/submodels`, submodel)).status).toBe(201);
    const url = `${api}/submodels/${b64(submodel.id)}`;

    expect(await bodyOf(await send('GET', `${url}?extent=withBlobValue`))).toEqual(submodel);
    expect(await bodyOf(await send('GET', url))).toEqual(withoutBlobValues(submodel));
    expect(await bodyOf(await send('GET', `${url}/submodel-elements/op`))).toEqual(withoutBlobValues(operation));
  });
});
