import { ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { aasRepositoryRoutes } from '../../rest-facade/aas-repository';
import { conceptDescriptionRoutes } from '../../rest-facade/concept-description-repository';
import { queryRoutes } from '../../rest-facade/query';
import { implicitRegistryRoutes } from '../../rest-facade/registry';
import { RouteSpec } from '../../rest-facade/route';
import { submodelRepositoryRoutes } from '../../rest-facade/submodel-repository';
import {
  AAS, BAD_BODIES, BAD_HEADERS, BAD_IDS, BAD_PATHS, BODY_LIMIT, CD, CONCEPT, FIXTURE_ELEMENTS, FOREIGN_METHODS, GOOD_PATHS,
  GraphqlCase, KB, MB, ODD_METHODS, SHELL, SM, SUBMODEL, TABLE_METHODS, b64, badQueries, garbageDocument, graphqlCases,
  graphqlMutation, mutateBody, validBody, flatObjects, nestingBomb,
} from '../support/fuzz-inputs';
import { Rnd, seededRandom } from '../support/seeded-random';
import { LOAD_SLACK_MS, medianMs } from '../support/timing';

/**
 * A bounded, seeded fuzz of every route of the façade's route tables (on a showcase tenant with a small fixture) and
 * of /graphql, with malformed input: bad path ids and idShortPaths, query parameters, bodies, encodings, methods,
 * headers, GraphQL documents and variables, and valid documents with one field of the wrong type.
 *
 * Every request must get an answer within 2 s that is not a 5xx (but 501 where that is the designed answer), and
 * every error answer must be an AAS Result object (for /graphql: a Result or GraphQL errors, never an internal
 * error). /health/live is probed the whole time and must answer 200 every time. All deviations are collected and
 * reported at once. Time is judged as a loaded machine allows (test/support/timing.ts): a request slower than 2 s
 * among the others is sent again alone after the run, and counts only when it is slow again; the probe's bound
 * has the load slack on top. The requests are drawn from one seeded PRNG before any is sent, so a run replays with
 * FUZZ_SEED=<seed>; the failure message names the seed and each request's index.
 *
 * The server runs in a child process: a request that blocks its event loop (or crashes it) then fails the test
 * through the client timeouts, where an in-process server would freeze the test itself.
 */

const SEED = (process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261123) >>> 0;
/** Requests in all: a sweep of every route with every kind of bad input, then random mixes up to this number. */
const TOTAL = 3_200;
const CLIENTS = 4;
const MAX_MS = 2_000;
const CLIENT_TIMEOUT_MS = 5_000 + LOAD_SLACK_MS;
const HEALTH_MAX_MS = 1_000 + LOAD_SLACK_MS;
const HEALTH_EVERY_MS = 25;
/** Requests in a row without an answer after which the server counts as frozen and the rest is not sent. */
const GIVE_UP_AFTER = 6;
const ROOT = path.resolve(__dirname, '../..');

// --- The plan: every request, drawn before the first is sent

interface Planned {
  index: number;
  graphql: boolean;
  method: string;
  /** Path and query, from the server root. */
  path: string;
  /** The route it was made from, as `METHOD /template` (the table's method, before any method change). */
  route: string;
  labels: string[];
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Whether 501 is a designed answer to this request. */
  allows501: boolean;
}

interface Draft {
  route: RouteSpec;
  method: string;
  ids: Record<string, string>;
  idShortPath?: string;
  query: string[];
  headers: Record<string, string>;
  body?: string | Buffer;
  labels: string[];
}

const ID_PARAMS = ['aasIdentifier', 'submodelIdentifier', 'cdIdentifier'] as const;
const GOOD_IDS: Record<string, string> = { aasIdentifier: b64(AAS), submodelIdentifier: b64(SM), cdIdentifier: b64(CD) };
const isInvoke = (route: RouteSpec) => route.path.includes('/invoke');

/** The idShortPath a valid request to `route` would name. */
function goodPath(route: RouteSpec, rnd: Rnd): string {
  if (isInvoke(route)) return 'Op';
  if (route.method === 'POST') return 'C';
  if (route.method === 'PUT' || route.method === 'PATCH') return 'P';
  return rnd.pick(GOOD_PATHS);
}

function baseDraft(route: RouteSpec, rnd: Rnd): Draft {
  const ids = Object.fromEntries(ID_PARAMS.filter((p) => route.path.includes(`:${p}`)).map((p) => [p, GOOD_IDS[p]]));
  const draft: Draft = { route, method: route.method, ids, query: [], headers: {}, labels: [] };
  if (route.path.includes(':idShortPath')) draft.idShortPath = goodPath(route, rnd);
  // A valid write would change the fixture: a write's body is always a valid one with one field made wrong.
  if (route.body) {
    const [label, text] = mutateBody(validBody(route), rnd);
    draft.body = text;
    draft.headers['content-type'] = 'application/json';
    draft.labels.push(label);
  }
  return draft;
}

interface Mutator {
  name: string;
  applies(route: RouteSpec): boolean;
  apply(draft: Draft, rnd: Rnd, queries: [string, string][]): void;
}

const MUTATORS: Mutator[] = [
  {
    name: 'id',
    applies: (route) => ID_PARAMS.some((p) => route.path.includes(`:${p}`)),
    apply(draft, rnd) {
      const param = rnd.pick(Object.keys(draft.ids));
      const [label, segment] = rnd.pick(BAD_IDS);
      draft.ids[param] = segment;
      draft.labels.push(`${param}: ${label}`);
    },
  },
  {
    name: 'idShortPath',
    applies: (route) => route.path.includes(':idShortPath'),
    apply(draft, rnd) {
      const [label, segment] = rnd.pick(BAD_PATHS);
      draft.idShortPath = segment;
      draft.labels.push(`idShortPath: ${label}`);
    },
  },
  {
    name: 'query',
    applies: () => true,
    apply(draft, rnd, queries) {
      const [label, query] = rnd.pick(queries);
      draft.query.push(query);
      draft.labels.push(`query: ${label}`);
    },
  },
  {
    name: 'body',
    applies: (route) => !!route.body,
    apply(draft, rnd) {
      const bad = rnd.pick(BAD_BODIES);
      draft.body = bad.body;
      draft.labels = draft.labels.filter((l) => !l.startsWith('valid body'));
      Object.assign(draft.headers, { 'content-type': 'application/json' }, bad.headers);
      draft.labels.push(`body: ${bad.label}`);
    },
  },
  {
    name: 'mutated body',
    applies: (route) => !!route.body,
    apply(draft, rnd) {
      const [label, text] = mutateBody(validBody(draft.route), rnd);
      draft.body = text;
      draft.labels = [...draft.labels.filter((l) => !l.startsWith('valid body')), label];
    },
  },
  {
    name: 'stray body',
    applies: (route) => !route.body,
    apply(draft, rnd) {
      const bad = rnd.pick(BAD_BODIES);
      draft.body = bad.body;
      Object.assign(draft.headers, { 'content-type': 'application/json' }, bad.headers);
      draft.labels.push(`body on a route that takes none: ${bad.label}`);
    },
  },
  {
    name: 'header',
    applies: () => true,
    apply(draft, rnd) {
      const [label, headers] = rnd.pick(BAD_HEADERS);
      Object.assign(draft.headers, headers);
      draft.labels.push(`header: ${label}`);
    },
  },
  {
    name: 'method',
    applies: () => true,
    apply(draft, rnd) {
      const taken = new Set(ALL_ROUTES.filter((r) => r.path === draft.route.path).map((r) => r.method as string));
      draft.method = rnd.pick([...ODD_METHODS, ...TABLE_METHODS.filter((m) => !taken.has(m))]);
      draft.labels.push(`method ${draft.method}`);
    },
  },
];

const ALL_ROUTES: RouteSpec[] = [...aasRepositoryRoutes, ...submodelRepositoryRoutes, ...conceptDescriptionRoutes, ...queryRoutes, ...implicitRegistryRoutes];

function finish(draft: Draft, tenant: string, index: number): Planned {
  let p = draft.route.path;
  for (const [param, segment] of Object.entries(draft.ids)) p = p.replace(`:${param}`, segment);
  if (draft.idShortPath !== undefined) p = p.replace(':idShortPath', draft.idShortPath);
  const headers = Object.fromEntries(Object.entries(draft.headers).filter(([, v]) => v !== ''));
  // A DELETE that names the fixture would take it away from every later request: it is always conditional on a
  // tag that never matches, which still runs the route up to the precondition check.
  if (draft.method === 'DELETE' && !headers['if-match']) {
    headers['if-match'] = '"fuzz-never-matches"';
    draft.labels.push('If-Match that never matches');
  }
  return {
    index,
    graphql: false,
    method: draft.method,
    path: `/tenants/${tenant}/api/v3.0${p}${draft.query.length ? `?${draft.query.join('&')}` : ''}`,
    route: `${draft.route.method} ${draft.route.path}`,
    labels: draft.labels,
    headers,
    body: draft.body,
    allows501: allows501(draft.method, draft.route),
  };
}

/**
 * 501 is a designed answer in two places: invoking an Operation (operations are described, not executed), and a
 * method that no route of the server takes at all (RFC 9110 §15.6.2: "the appropriate response when the server does
 * not recognize the request method"). Anything else at 5xx is a defect.
 */
function allows501(method: string, route?: RouteSpec): boolean {
  return FOREIGN_METHODS.includes(method) || (!!route && isInvoke(route) && method === 'POST');
}

function graphqlPlanned(c: GraphqlCase, index: number, extra: [string, Record<string, string>] | undefined): Planned {
  const method = c.method ?? 'POST';
  const headers: Record<string, string> = { ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}), ...c.headers };
  const labels = [c.label];
  if (extra) {
    Object.assign(headers, extra[1]);
    labels.push(`header: ${extra[0]}`);
  }
  return {
    index,
    graphql: true,
    method,
    path: `/graphql${c.search ?? ''}`,
    route: `${method} /graphql`,
    labels,
    headers: Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== '')),
    body: c.body,
    allows501: allows501(method),
  };
}

function plan(tenant: string, cursors: string[]): Planned[] {
  const rnd = seededRandom(SEED);
  const queries = badQueries(cursors);
  const drafts: (Draft | { graphql: GraphqlCase; header?: [string, Record<string, string>] })[] = [];
  // The sweep: every route as it is (the baseline), with each kind of bad input that applies to it, and every
  // method on its path; every GraphQL case once.
  for (const route of ALL_ROUTES) {
    drafts.push(baseDraft(route, rnd));
    for (const mutator of MUTATORS) {
      if (!mutator.applies(route)) continue;
      const times = mutator.name === 'id' || mutator.name === 'idShortPath' || mutator.name === 'body' ? 4 : 2;
      for (let i = 0; i < times; i++) {
        const draft = baseDraft(route, rnd);
        mutator.apply(draft, rnd, queries);
        drafts.push(draft);
      }
    }
  }
  for (const path of new Set(ALL_ROUTES.map((r) => r.path))) {
    const route = ALL_ROUTES.find((r) => r.path === path)!;
    for (const method of ['TRACE', 'PROPFIND', 'LOCK', 'OPTIONS']) drafts.push({ ...baseDraft(route, rnd), method, labels: [`method ${method}`], headers: {}, body: undefined });
  }
  const cases = graphqlCases(tenant);
  for (const c of cases) drafts.push({ graphql: c });
  // Random mixes: one to three kinds of bad input at once on REST routes; GraphQL cases, garbage documents and
  // mutated documents.
  while (drafts.length < TOTAL) {
    if (rnd.next() < 0.75) {
      const route = rnd.pick(ALL_ROUTES);
      const draft = baseDraft(route, rnd);
      const count = 1 + (rnd.next() < 0.4 ? 1 : 0) + (rnd.next() < 0.15 ? 1 : 0);
      const applicable = MUTATORS.filter((m) => m.applies(route));
      for (let i = 0; i < count; i++) rnd.pick(applicable).apply(draft, rnd, queries);
      drafts.push(draft);
    } else {
      const r = rnd.next();
      const header = rnd.next() < 0.2 ? rnd.pick(BAD_HEADERS) : undefined;
      if (r < 0.4) drafts.push({ graphql: rnd.pick(cases), header });
      else if (r < 0.7) drafts.push({ graphql: { label: 'garbage document', body: JSON.stringify({ query: garbageDocument(rnd) }) }, header });
      else drafts.push({ graphql: graphqlMutation(tenant, rnd), header });
    }
  }
  // Shuffled (Fisher-Yates), so the heavy cases are spread over the run and the health probe sees them all.
  for (let i = drafts.length - 1; i > 0; i--) {
    const j = rnd.int(i + 1);
    [drafts[i], drafts[j]] = [drafts[j], drafts[i]];
  }
  return drafts.map((d, index) => ('graphql' in d ? graphqlPlanned(d.graphql, index, d.header) : finish(d, tenant, index)));
}

// --- Sending

interface Answer {
  /** -1: no answer (timeout, connection reset), with `error`. */
  status: number;
  ms: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  error?: string;
}

/** Sends one request with node:http (fetch refuses TRACE and friends), within `timeoutMs` from start to last byte. */
function send(base: string, agent: http.Agent, method: string, target: string, headers: Record<string, string>, body: string | Buffer | undefined, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    let request: http.ClientRequest | undefined;
    const done = (answer: Omit<Answer, 'ms'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...answer, ms: performance.now() - started });
    };
    const timer = setTimeout(() => {
      done({ status: -1, headers: {}, body: '', error: `no answer within ${timeoutMs} ms` });
      request?.destroy();
    }, timeoutMs);
    try {
      // Host, port and path given apart: a URL string would be normalized on the way (`/a/../b` sent as `/b`).
      const { hostname, port } = new URL(base);
      request = http.request({ hostname, port, path: target, method, headers, agent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= 256 * 1024) chunks.push(chunk);
        });
        res.on('end', () => done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', (err) => done({ status: -1, headers: res.headers, body: '', error: `answer broke off: ${err.message}` }));
      });
    } catch (err) {
      done({ status: -1, headers: {}, body: '', error: `the client cannot send it: ${(err as Error).message}` });
      return;
    }
    request.on('error', (err) => done({ status: -1, headers: {}, body: '', error: `connection failed: ${(err as Error).message}` }));
    request.end(body);
  });
}

// --- Checks

const MESSAGE_TYPES = ['Undefined', 'Info', 'Warning', 'Error', 'Exception'];
const clip = (text: string, n = 160) => (text.length > n ? `${text.slice(0, n)}…` : text).replace(/\s+/g, ' ');

/** Why `text` is not the AAS Result object of an answer with `status` and X-Request-Id `requestId`, if it is not. */
function resultProblem(text: string, status: number, requestId: unknown): string | undefined {
  let body: { messages?: Record<string, unknown>[] };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return `not a Result (not JSON): ${clip(text) || '(empty)'}`;
  }
  const messages = body?.messages;
  if (!Array.isArray(messages) || messages.length === 0) return `not a Result (no messages): ${clip(text)}`;
  for (const m of messages) {
    if (m?.code !== String(status)) return `Result code ${JSON.stringify(m?.code)} for status ${status}`;
    if (!MESSAGE_TYPES.includes(m.messageType as string)) return `Result messageType ${JSON.stringify(m.messageType)}`;
    if (typeof m.text !== 'string' || m.text === '') return 'Result message without text';
    if (typeof m.timestamp !== 'string' || Number.isNaN(Date.parse(m.timestamp))) return `Result timestamp ${JSON.stringify(m.timestamp)}`;
    if (typeof m.correlationId !== 'string' || m.correlationId !== requestId) return `Result correlationId ${JSON.stringify(m.correlationId)} ≠ X-Request-Id ${JSON.stringify(requestId)}`;
  }
  return undefined;
}

/** Whether a GraphQL answer (or batch of answers) holds an error with the code INTERNAL_SERVER_ERROR. */
function internalError(text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  return (Array.isArray(body) ? body : [body]).some((answer) =>
    ((answer as { errors?: unknown } | null)?.errors as { extensions?: { code?: unknown } }[] | undefined)?.some?.((e) => e?.extensions?.code === 'INTERNAL_SERVER_ERROR'),
  );
}

/** About the size of a request's head (request line and headers). */
const headBytes = (p: Planned) => p.method.length + p.path.length + Object.entries(p.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0);

/** The deviations of one answer: [kind, detail]. */
function deviations(p: Planned, a: Answer): [string, string][] {
  const found: [string, string][] = [];
  // A request line and headers past Node's 16 KB are refused with a 431 and the connection closed; the client may
  // still be writing then and see the reset before the answer. That is a refusal, not a server that went silent.
  if (a.status < 0 && headBytes(p) > 15 * KB && /ECONNRESET|EPIPE/.test(a.error ?? '')) return [];
  if (a.status < 0) return [['no answer', a.error ?? '']];
  if (a.status >= 500 && !(a.status === 501 && p.allows501)) found.push([`status ${a.status}`, clip(a.body)]);
  if (a.status >= 400 && p.method !== 'HEAD') {
    let problem: string | undefined;
    if (!p.graphql || a.body.trimStart().startsWith('{"messages"')) problem = resultProblem(a.body, a.status, a.headers['x-request-id']);
    else {
      try {
        const errors = (JSON.parse(a.body) as { errors?: { message?: unknown }[] }).errors;
        if (!Array.isArray(errors) || errors.length === 0 || errors.some((e) => typeof e?.message !== 'string')) problem = `neither a Result nor GraphQL errors: ${clip(a.body)}`;
      } catch {
        problem = `neither a Result nor GraphQL errors (not JSON): ${clip(a.body) || '(empty)'}`;
      }
    }
    if (problem) found.push([`${a.status} without a proper Result`, problem]);
  }
  // A GraphQL answer may carry errors at 200; an internal one is a 500 in disguise.
  if (p.graphql && a.status < 500 && internalError(a.body)) found.push(['internal error in a GraphQL answer', clip(a.body)]);
  return found;
}

// --- The server, in a child process

let child: ChildProcess;
let serverOutput = '';
let base: string;
let tenant: string;
let cursors: string[] = [];

interface FuzzServer {
  child: ChildProcess;
  url: string;
  tenant: string;
  /** A tenant that is not in showcase mode: every request without a token is refused. */
  closed: string;
  /** What it printed to stderr so far. */
  output(): string;
}

/** A fuzz server in a child process, with `bodyLimit` bytes as its BODY_LIMIT, on a showcase tenant of its own. */
async function spawnFuzzServer(bodyLimit: number): Promise<FuzzServer> {
  const process_ = spawn(process.execPath, ['-r', '@swc-node/register', 'test/support/fuzz-server.ts'], {
    cwd: ROOT,
    env: { ...process.env, FUZZ_DATABASE_URL: inject('databaseUrl'), FUZZ_BODY_LIMIT: String(bodyLimit) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  process_.stderr!.on('data', (chunk) => (output += chunk));
  const ready = await new Promise<{ url: string; tenant: string; closed: string }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the fuzz server did not start in 90 s:\n${output}`)), 90_000);
    process_.stdout!.on('data', (chunk) => {
      out += chunk;
      // A whole line: the last piece is still being written until its newline comes.
      const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as { url: string; tenant: string; closed: string });
      }
    });
    process_.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the fuzz server exited with ${code} before it was ready:\n${output}`));
    });
  });
  return { child: process_, url: ready.url, tenant: ready.tenant, closed: ready.closed, output: () => output };
}

async function startServer(): Promise<void> {
  const server = await spawnFuzzServer(BODY_LIMIT);
  child = server.child;
  child.stderr!.on('data', (chunk) => (serverOutput += chunk));
  base = server.url;
  tenant = server.tenant;
}

async function stopServer(server = child): Promise<void> {
  if (!server || server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  // SIGCONT first: a test of this harness may have stopped it.
  server.kill('SIGCONT');
  server.kill('SIGTERM');
  const timer = setTimeout(() => server.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

const api = () => `/tenants/${tenant}/api/v3.0`;
const setupAgent = new http.Agent({ keepAlive: false });
const get = (target: string) => send(base, setupAgent, 'GET', `${api()}${target}`, {}, undefined, 30_000);

/** What no fuzzed request may change: the shell's submodel references, the submodel's elements, the concept. */
async function fixtureState(): Promise<string> {
  const [shell, submodel, concept] = await Promise.all([get(`/shells/${b64(AAS)}`), get(`/submodels/${b64(SM)}`), get(`/concept-descriptions/${b64(CD)}`)]);
  if (shell.status !== 200 || submodel.status !== 200 || concept.status !== 200) return `statuses ${shell.status}, ${submodel.status}, ${concept.status}`;
  const refs = (JSON.parse(shell.body) as typeof SHELL).submodels.map((r) => r.keys.map((k) => k.value).join('/'));
  const elements = (JSON.parse(submodel.body) as { submodelElements: { modelType: string; idShort: string }[] }).submodelElements.map((e) => `${e.modelType}:${e.idShort}`);
  return JSON.stringify({ refs, elements, concept: (JSON.parse(concept.body) as { id: string }).id });
}
const FIXTURE_STATE = JSON.stringify({ refs: [SM], elements: FIXTURE_ELEMENTS, concept: CD });

beforeAll(async () => {
  await startServer();
  for (const [target, doc] of [['/submodels', SUBMODEL], ['/shells', SHELL], ['/concept-descriptions', CONCEPT]] as const) {
    const res = await send(base, setupAgent, 'POST', `${api()}${target}`, { 'content-type': 'application/json' }, JSON.stringify(doc), 30_000);
    expect(res.status, `POST ${target}: ${res.body}`).toBe(201);
  }
  expect(await fixtureState()).toBe(FIXTURE_STATE);
  // Real cursors, issued by lists of the fixture, to be sent to the other lists.
  for (const list of [`/submodels/${b64(SM)}/submodel-elements?limit=1`, '/submodels/$path?limit=1', `/submodels/${b64(SM)}/submodel-elements/$path?limit=2`, `/shells/${b64(AAS)}/submodels/${b64(SM)}/submodel-elements/$metadata?limit=3`]) {
    const res = await get(list);
    const cursor = res.status === 200 ? (JSON.parse(res.body) as { paging_metadata?: { cursor?: string } }).paging_metadata?.cursor : undefined;
    if (cursor) cursors.push(cursor);
  }
}, 120_000);

afterAll(() => stopServer(), 30_000);

describe(`fuzz of the REST façade and /graphql (seed ${SEED}, replay with FUZZ_SEED=${SEED})`, () => {
  it('answers every request within 2 s, never with a 5xx, errors as Results, while /health/live stays up', async () => {
    const requests = plan(tenant, cursors);
    // Every route of the tables is in the plan, and so is /graphql.
    const routesPlanned = new Set(requests.map((r) => r.route));
    expect(ALL_ROUTES.filter((r) => !routesPlanned.has(`${r.method} ${r.path}`))).toEqual([]);
    expect(routesPlanned.has('POST /graphql') && routesPlanned.has('GET /graphql')).toBe(true);

    const problems: { p: Planned; a: Answer; kind: string; detail: string }[] = [];
    const statuses = new Map<number, number>();
    let aborted: string | undefined;
    let childExit: string | undefined;
    child.once('exit', (code, signal) => {
      childExit = `the server process exited (code ${code}, signal ${signal})`;
      aborted ??= childExit;
    });

    // The health probe, on its own connection, for the whole run.
    const health = { probes: 0, maxMs: 0, failures: [] as string[] };
    let running = true;
    const started = performance.now();
    const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const probe = (async () => {
      let silent = 0;
      while (running) {
        const a = await send(base, probeAgent, 'GET', '/health/live', {}, undefined, CLIENT_TIMEOUT_MS);
        health.probes++;
        health.maxMs = Math.max(health.maxMs, a.ms);
        if (a.status !== 200 || a.ms >= HEALTH_MAX_MS) {
          health.failures.push(`at ${Math.round(performance.now() - started)} ms: ${a.status < 0 ? a.error : `status ${a.status}`} in ${Math.round(a.ms)} ms`);
        }
        silent = a.status < 0 ? silent + 1 : 0;
        if (silent >= 3) aborted ??= `/health/live did not answer ${silent} times in a row`;
        await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
      }
    })();

    const agent = new http.Agent({ keepAlive: true });
    // FUZZ_DUMP=file writes one JSON line per request (what was sent, what came back), to look into a run.
    const dump: string[] | undefined = process.env.FUZZ_DUMP ? [] : undefined;
    let next = 0;
    let sent = 0;
    let silentInARow = 0;
    let slowest = { ms: 0, what: '' };
    const slow: Planned[] = [];
    const client = async () => {
      while (!aborted && next < requests.length) {
        const p = requests[next++];
        const a = await send(base, agent, p.method, p.path, p.headers, p.body, CLIENT_TIMEOUT_MS);
        sent++;
        statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
        if (a.ms > slowest.ms) slowest = { ms: a.ms, what: `#${p.index} ${p.method} ${p.route} [${p.labels.join(' + ')}] → ${a.status}` };
        for (const [kind, detail] of deviations(p, a)) problems.push({ p, a, kind, detail });
        if (a.status >= 0 && a.ms > MAX_MS) slow.push(p);
        if (dump) dump.push(JSON.stringify({ index: p.index, method: p.method, path: clip(p.path, 300), route: p.route, labels: p.labels, body: clip(String(p.body ?? ''), 300), status: a.status, ms: Math.round(a.ms), error: a.error, answer: clip(a.body, 300) }));
        silentInARow = a.status < 0 && /no answer within/.test(a.error ?? '') ? silentInARow + 1 : 0;
        if (silentInARow >= GIVE_UP_AFTER) aborted ??= `${silentInARow} requests in a row got no answer within ${CLIENT_TIMEOUT_MS} ms: the server is frozen`;
      }
    };
    try {
      await Promise.all(Array.from({ length: CLIENTS }, client));
    } finally {
      running = false;
      await probe;
      agent.destroy();
      probeAgent.destroy();
    }
    const elapsed = Math.round(performance.now() - started);
    if (dump) fs.writeFileSync(process.env.FUZZ_DUMP!, `${dump.join('\n')}\n`);

    // After all that, the fixture is as it was: no malformed write went through.
    if (!aborted) {
      const fixture = await fixtureState();
      if (fixture !== FIXTURE_STATE) problems.push({ p: requests[0], a: { status: 0, ms: 0, headers: {}, body: '' }, kind: 'the fixture changed', detail: `${fixture}, expected ${FIXTURE_STATE}` });
    }
    // A request slow among 3,000 others on a busy machine is sent again alone: slow again, it is a defect.
    const soloAgent = new http.Agent({ keepAlive: false });
    for (const p of aborted ? [] : slow) {
      const a = await send(base, soloAgent, p.method, p.path, p.headers, p.body, CLIENT_TIMEOUT_MS);
      if (a.status < 0 || a.ms > MAX_MS) problems.push({ p, a, kind: 'slower than 2 s, also when sent alone', detail: `${Math.round(a.ms)} ms` });
    }
    soloAgent.destroy();
    // Errors the server logged (a resolver throwing something unexpected), or anything it printed to stderr beside
    // its JSON log (a library's console.error), are defects even when the answer looked fine.
    const logged = serverOutput.split('\n').filter((l) => l.trim() !== '' && (!l.startsWith('{') || /"level":(50|60)/.test(l)));

    const summary = [
      `seed ${SEED} (replay: FUZZ_SEED=${SEED}): ${sent} of ${requests.length} requests in ${elapsed} ms with ${CLIENTS} clients${aborted ? `, stopped: ${aborted}` : ''}`,
      `statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((x, y) => x[0] - y[0])))}`,
      `slowest ${Math.round(slowest.ms)} ms: ${clip(slowest.what, 300)}; ${slow.length} slower than ${MAX_MS} ms, sent again alone`,
      `/health/live: ${health.probes} probes, max ${Math.round(health.maxMs)} ms, ${health.failures.length} failures`,
      `server error log lines: ${logged.length}`,
    ].join('\n');
    console.log(summary);

    // One list of everything found: the deviations grouped by kind, status and method (and GraphQL case), each group
    // with its first request, how many requests on how many routes it holds, and the inputs most common in it.
    const groups = new Map<string, typeof problems>();
    for (const problem of problems) {
      const key = `${problem.kind} | ${problem.a.status} | ${problem.p.method}${problem.p.graphql ? ` | ${problem.p.labels[0]}` : ''}`;
      groups.set(key, [...(groups.get(key) ?? []), problem]);
    }
    const inputClass = (label: string) => label.replace(/^(aasIdentifier|submodelIdentifier|cdIdentifier): /, 'id: ').replace(/\$\S* of the wrong type/, 'one field of the wrong type');
    const line = (group: typeof problems) => {
      const { p, a, kind, detail } = group[0];
      let text = `#${p.index} ${p.method} ${clip(p.path.replace(`/tenants/${tenant}/api/v3.0`, '{api}'), 110)} [${clip(p.labels.join(' + '), 140)}] → ${a.status} in ${Math.round(a.ms)} ms: ${kind}: ${clip(detail, 200)}`;
      if (group.length > 1) {
        const inputs = new Map<string, number>();
        for (const { p: q } of group) for (const label of q.labels) inputs.set(inputClass(label), (inputs.get(inputClass(label)) ?? 0) + 1);
        const common = [...inputs].sort((x, y) => y[1] - x[1]).slice(0, 4).map(([label, n]) => `${label} ×${n}`);
        text += ` — ${group.length} requests like it on ${new Set(group.map((g) => g.p.route)).size} routes; inputs: ${common.join(', ') || 'none'}`;
      }
      return text;
    };
    const report: string[] = [];
    if (childExit) report.push(`${childExit} after ${sent} requests; its last output: ${clip(serverOutput.slice(-2000), 2000)}`);
    else if (aborted) report.push(`stopped after ${sent} of ${requests.length} requests: ${aborted}`);
    for (const failure of health.failures.slice(0, 10)) report.push(`/health/live ${failure}`);
    if (health.failures.length > 10) report.push(`/health/live failed ${health.failures.length} times in all`);
    if (health.probes < 20) report.push(`/health/live was probed only ${health.probes} times`);
    report.push(...[...groups.values()].map(line));
    // Each distinct line once (a JSON line by its message and error), with how often it came.
    const distinct = new Map<string, { line: string; count: number }>();
    for (const logLine of logged) {
      let key = logLine;
      try {
        const entry = JSON.parse(logLine) as { msg?: string; err?: { message?: string } };
        key = `${entry.msg} ${entry.err?.message}`;
      } catch {
        // printed text: the line itself
      }
      distinct.set(key, { line: logLine, count: (distinct.get(key)?.count ?? 0) + 1 });
    }
    for (const { line: logLine, count } of [...distinct.values()].slice(0, 10)) {
      const times = count > 1 ? ` (${count} times)` : '';
      report.push(logLine.startsWith('{') ? `the server logged an error${times}: ${clip(logLine, 400)}` : `the server printed to stderr, outside its JSON log${times}: ${clip(logLine, 400)}`);
    }
    expect(report.slice(0, 50), `${summary}\n${report.length} deviations (the first 50 below)`).toEqual([]);
  }, 240_000);

  it('stops an upload whose client gives up during its import: nothing of it is stored, nothing logged as an error, /health/live stays up', async () => {
    const ids = Array.from({ length: 20_000 }, (_, i) => `urn:fuzz:abandoned:${i}`);
    const environment = Buffer.from(JSON.stringify({ assetAdministrationShells: ids.map((id) => ({ ...SHELL, id, submodels: undefined })) }));
    const boundary = 'fuzz-abandoned-upload';
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="environment.json"\r\nContent-Type: application/json\r\n\r\n`),
      environment,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const logBefore = serverOutput.length;
    const upload = http.request(`${base}${api()}/upload`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': body.length } });
    upload.on('error', () => undefined);
    await new Promise<void>((resolve) => upload.end(body, resolve));
    // The client gives up while the server reads and stores the documents, and the server is probed meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    upload.destroy();
    const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    let slowest = 0;
    for (let i = 0; i < 40; i++) {
      const a = await send(base, probeAgent, 'GET', '/health/live', {}, undefined, CLIENT_TIMEOUT_MS);
      expect(a.status).toBe(200);
      slowest = Math.max(slowest, a.ms);
      await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
    }
    probeAgent.destroy();
    expect(slowest).toBeLessThan(HEALTH_MAX_MS);
    for (const id of [ids[0], ids[ids.length - 1]]) expect((await get(`/shells/${b64(id)}`)).status, id).toBe(404);
    // The import stopped and rolled back: its first shell, which it wrote, is free to be created at once (an import
    // going on for a client that had gone would hold it until its commit, and then a create would be a conflict).
    const created = await send(base, setupAgent, 'POST', `${api()}/shells`, { 'content-type': 'application/json' }, JSON.stringify({ ...SHELL, id: ids[0], submodels: undefined }), 15_000);
    expect(created.status, created.body).toBe(201);
    expect((await send(base, setupAgent, 'DELETE', `${api()}/shells/${b64(ids[0])}`, {}, undefined, 15_000)).status).toBe(204);
    expect(await fixtureState()).toBe(FIXTURE_STATE);
    const errors = serverOutput.slice(logBefore).split('\n').filter((l) => /"level":(50|60)/.test(l));
    expect(errors).toEqual([]);
  }, 120_000);
});

// --- The costliest bodies, on a server with the default body limit

/**
 * The bound asked of the event loop while nesting bombs are read: every /health/live probe answered within 100 ms, or
 * within the time this process takes to inflate one bomb, measured in the test, when the machine is slower than that:
 * a server reading a bomb in its event loop would stall it for longer than that.
 */
const HEAVY_HEALTH_MAX_MS = 100;
const HEAVY_BODY_LIMIT = 64 * MB;
const HEAVY_TIMEOUT_MS = 120_000;

interface Heavy {
  label: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer | string;
  /** The statuses it may get. */
  statuses: number[];
  /** Its refusal is a GraphQL error (a refused token on /graphql), not a Result. */
  graphqlError?: true;
}

/** A flat JSON body of about `bytes`: `{"x":[{},{},...]}`, one object per 3 bytes, built without an array of parts. */
const flatBody = (bytes: number) => Buffer.from(`{"x":[${'{},'.repeat(Math.floor((bytes - 8) / 3))}{}]}`);

describe('bodies that cost the most to read (BODY_LIMIT 64 MB)', () => {
  it('keeps /health/live answering while three compressed nesting bombs at a time are read (within 100 ms, or the time to inflate one), and under 1 s while three unauthenticated 60 MB flat bodies at a time are sent or large flat bodies refused', async () => {
    const heavy = await spawnFuzzServer(HEAVY_BODY_LIMIT);
    try {
      const gzipJson = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
      const json = { 'content-type': 'application/json' };
      const unused = (value: string) => `{"query":"{ __typename }","variables":{"unused":${value}}}`;
      // Three nesting bombs of 60 MB in 61 KB of gzip: as a GraphQL variable, on a tenant route, on the Management API.
      const bombs: Heavy[] = [
        { label: 'GraphQL variable', path: '/graphql', headers: gzipJson, body: nestingBomb('{"query":"query($v: JSON) { __typename }","variables":{"v":'), statuses: [400] },
        { label: 'tenant API', path: `/tenants/${heavy.tenant}/api/v3.0/submodels`, headers: gzipJson, body: nestingBomb('{"modelType":"Submodel","id":"urn:bomb","submodelElements":'), statuses: [400] },
        { label: 'Management API', path: '/api/v1/accounts', headers: gzipJson, body: nestingBomb('{"email":"bomb@example.com","displayName":'), statuses: [400] },
      ];
      for (const bomb of bombs) expect(bomb.body.length).toBeLessThan(100 * KB);
      const bombBound = Math.max(HEAVY_HEALTH_MAX_MS, await medianMs(() => gunzipSync(bombs[0].body), 3));
      // Three 60 MB flat bodies at a time without a token (or with a refused one), on a tenant that needs one: each is
      // answered 401 before its body is read, and what the client still sends is dropped unread.
      const sixty = flatBody(60 * MB);
      const closed = `/tenants/${heavy.closed}/api/v3.0`;
      const unauthenticated: Heavy[] = [
        { label: 'unauthenticated 60 MB for a shell', path: `${closed}/shells`, headers: json, body: sixty, statuses: [401] },
        { label: 'unauthenticated 60 MB for a submodel', path: `${closed}/submodels`, headers: json, body: sixty, statuses: [401] },
        { label: 'unauthenticated 60 MB for a query', path: `${closed}/query/submodels`, headers: json, body: sixty, statuses: [401] },
        { label: 'unauthenticated 60 MB for an organization', path: '/api/v1/organizations', headers: json, body: sixty, statuses: [401] },
        {
          label: '60 MB of GraphQL variables with a refused token',
          path: '/graphql',
          headers: { ...json, authorization: 'Bearer garbage' },
          body: Buffer.concat([Buffer.from('{"query":"{ __typename }","variables":{"unused":'), sixty, Buffer.from('}}')]),
          statuses: [401],
          graphqlError: true,
        },
      ];
      // Flat bodies a caller without a token may send to a showcase tenant: 18 MB of [{},{},...] and 60 MB of small
      // objects; refused while they are read (GraphQL without a token: REQUEST_BODY_LIMIT; a submodel: an array is not one).
      const record = (i: number) => `{"idShort":"P${i}","value":"${'v'.repeat(40)}"}`;
      const flat: Heavy[] = [
        { label: '18 MB of [{},{},...] in a variable', path: '/graphql', headers: json, body: unused(flatObjects(18 * MB)), statuses: [413] },
        { label: '60 MB of small objects in a variable', path: '/graphql', headers: json, body: unused(`[${Array.from({ length: Math.floor((60 * MB) / record(999_999).length) }, (_, i) => record(i)).join(',')}]`), statuses: [413] },
        { label: '18 MB of [{},{},...] for a submodel', path: `/tenants/${heavy.tenant}/api/v3.0/submodels`, headers: json, body: flatObjects(18 * MB), statuses: [400] },
      ];

      const health = { probes: 0, failures: [] as string[], maxMs: { bombs: 0, unauthenticated: 0, flat: 0 } };
      let phase: { label: string; kind: 'idle' | 'bombs' | 'unauthenticated' | 'flat'; bound: number } = { label: 'idle', kind: 'idle', bound: HEAVY_HEALTH_MAX_MS };
      let running = true;
      const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const probe = (async () => {
        while (running) {
          const a = await send(heavy.url, probeAgent, 'GET', '/health/live', {}, undefined, CLIENT_TIMEOUT_MS);
          health.probes++;
          if (phase.kind !== 'idle') health.maxMs[phase.kind] = Math.max(health.maxMs[phase.kind], a.ms);
          // The idle phase only lets the fresh server settle: its probes are not judged.
          if (phase.kind !== 'idle' && (a.status !== 200 || a.ms >= phase.bound)) health.failures.push(`during ${phase.label}: ${a.status < 0 ? a.error : `status ${a.status}`} in ${Math.round(a.ms)} ms`);
          await new Promise((resolve) => setTimeout(resolve, HEALTH_EVERY_MS));
        }
      })();
      const agent = new http.Agent({ keepAlive: true });
      const problems: string[] = [];
      const run = async (h: Heavy) => {
        const a = await send(heavy.url, agent, 'POST', h.path, h.headers, h.body, HEAVY_TIMEOUT_MS);
        if (!h.statuses.includes(a.status)) problems.push(`${h.label}: ${a.status} ${a.error ?? clip(a.body)}`);
        else if (h.graphqlError) {
          if (!/"UNAUTHENTICATED"/.test(a.body)) problems.push(`${h.label}: not a GraphQL UNAUTHENTICATED error: ${clip(a.body)}`);
        } else if (a.status >= 400 && resultProblem(a.body, a.status, a.headers['x-request-id'])) problems.push(`${h.label}: ${resultProblem(a.body, a.status, a.headers['x-request-id'])}`);
      };
      try {
        // Let the probe settle on an idle server first.
        await new Promise((resolve) => setTimeout(resolve, 500));
        phase = { label: 'three nesting bombs at a time', kind: 'bombs', bound: bombBound };
        for (let round = 0; round < 5; round++) await Promise.all(bombs.map(run));
        // Refused before they are read, their connections closed: the fuzz test's general bound (the bench measures p99).
        phase = { label: 'three unauthenticated 60 MB flat bodies at a time', kind: 'unauthenticated', bound: HEALTH_MAX_MS };
        for (let round = 0; round < 3 * unauthenticated.length; round++) await Promise.all([0, 1, 2].map((k) => run(unauthenticated[(round + k) % unauthenticated.length])));
        // Read until refused (decompressed, scanned, held): the fuzz test's general bound applies.
        for (const h of flat) {
          phase = { label: h.label, kind: 'flat', bound: HEALTH_MAX_MS };
          await run(h);
        }
      } finally {
        running = false;
        await probe;
        agent.destroy();
        probeAgent.destroy();
      }
      console.log(
        `heavy bodies: /health/live ${health.probes} probes, max ${Math.round(health.maxMs.bombs)} ms during the bombs (bound ${Math.round(bombBound)} ms), ` +
          `${Math.round(health.maxMs.unauthenticated)} ms during the unauthenticated flat bodies, ${Math.round(health.maxMs.flat)} ms during the flat bodies; ${JSON.stringify(health.failures)}`,
      );
      expect(problems).toEqual([]);
      expect(health.probes).toBeGreaterThan(20);
      expect(health.failures).toEqual([]);
      const logged = heavy.output().split('\n').filter((l) => l.trim() !== '' && (!l.startsWith('{') || /"level":(50|60)/.test(l)));
      expect(logged).toEqual([]);
    } finally {
      await stopServer(heavy.child);
    }
  }, 300_000);
});
