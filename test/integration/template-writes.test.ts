import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TenantEntity } from '../../src/management/tenants/tenant.entity';
import { assignRole } from '../support/grants';
import { newServiceAccount } from '../support/identity';
import { TestServer, b64, json, startTestServer } from '../support/server';
import { AASX_DIR } from '../support/testdata';

/**
 * Writes into real IDTA submodel templates imported from their AASX packages. The import is tolerant: it stores
 * the submodels with the constraint violations the packages carry (AASd-120 in the SubmodelElementLists of the
 * Technical Data sample and the Handover Documentation sample, AASd-109, descriptions and display names with a
 * language twice) and warns about them. A write is judged by what it changes: every ordinary write a client makes
 * into such a submodel (POST, PUT, DELETE of an element, an attachment, the whole submodel PUT back with a
 * changed description) succeeds, and a write that introduces a violation of its own is still 400 and changes
 * nothing.
 */

const PACKAGES = [
  'IDTA_02003_Sample_TechnicalData.aasx',
  'IDTA_02004-2-0_Template_sample_HandoverDocumentation.aasx',
  'IDTA_02006-3-0-1_Template_Digital_Nameplate.aasx',
];

type Json = Record<string, unknown>;

/** The metamodel library's message for a value its valueType does not allow. */
const VALUE_TYPE = /consistent with the value type/;

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

/** An element of a submodel with its idShortPath, depth-first in document order. */
interface Found {
  element: Json;
  path: string;
}

const childrenOf = (element: Json): Json[] => {
  const key = ({ SubmodelElementCollection: 'value', SubmodelElementList: 'value', Entity: 'statements', AnnotatedRelationshipElement: 'annotations' } as Record<string, string>)[element.modelType as string];
  return key ? ((element[key] as Json[] | undefined) ?? []) : [];
};

function walk(elements: Json[], prefix = '', out: Found[] = []): Found[] {
  for (const element of elements) {
    const at = `${prefix}${prefix ? '.' : ''}${String(element.idShort)}`;
    out.push({ element, path: at });
    descend(element, at, out);
  }
  return out;
}

function descend(element: Json, at: string, out: Found[]): void {
  if (element.modelType === 'SubmodelElementList') {
    childrenOf(element).forEach((child, i) => {
      out.push({ element: child, path: `${at}[${i}]` });
      descend(child, `${at}[${i}]`, out);
    });
  } else {
    walk(childrenOf(element), at, out);
  }
}

/** A smallest valid element of `modelType` (`extra` added); undefined for kinds this test does not build. */
function minimal(modelType: string, extra: Json = {}): Json | undefined {
  switch (modelType) {
    case 'Property':
    case 'Range':
      return { modelType, valueType: 'xs:string', ...extra };
    case 'File':
    case 'Blob':
      return { modelType, contentType: 'application/octet-stream', ...extra };
    case 'Entity':
      return { modelType, entityType: 'CoManagedEntity', ...extra };
    case 'SubmodelElementCollection':
    case 'MultiLanguageProperty':
    case 'ReferenceElement':
      return { modelType, ...extra };
    default:
      return undefined;
  }
}

/** A child the list takes (its type, semanticIdListElement and valueTypeListElement), with `extra`. */
function conformingChild(list: Json, extra: Json = {}): Json | undefined {
  const type = list.typeValueListElement as string;
  return minimal(type, {
    ...(list.semanticIdListElement ? { semanticId: list.semanticIdListElement } : {}),
    ...(list.valueTypeListElement && (type === 'Property' || type === 'Range') ? { valueType: list.valueTypeListElement } : {}),
    ...extra,
  });
}

/** The submodel's lists of one concrete element type that this test can build children for. */
const typedLists = (submodel: Json): Found[] =>
  walk((submodel.submodelElements as Json[] | undefined) ?? []).filter(
    ({ element }) => element.modelType === 'SubmodelElementList' && conformingChild(element) !== undefined,
  );

/** Whether the list's children carry idShorts (a stored AASd-120 violation). */
const childrenHaveIdShorts = (list: Json) => childrenOf(list).some((child) => child.idShort !== undefined);

/** A description with the first text changed, or an English one where there was none. */
function edited(description: unknown, text: string): Json[] {
  const entries = (description as Json[] | undefined) ?? [];
  if (!entries.length) return [{ language: 'en', text }];
  return [{ ...entries[0], text: `${String(entries[0].text)} (${text})` }, ...entries.slice(1)];
}

/** The status and message texts of a response: `text` shortened for assertion messages, `all` in full. */
async function outcome(res: Response): Promise<{ status: number; text: string; all: string }> {
  const body = await res.text();
  let all = body;
  try {
    const parsed = JSON.parse(body) as { messages?: { text: string }[] };
    if (parsed.messages) all = parsed.messages.map((m) => m.text).join(' | ');
  } catch {
    // not JSON: the raw body
  }
  return { status: res.status, text: `${res.status} ${all.slice(0, 600)}`, all };
}

describe.each(PACKAGES)('%s', (name) => {
  let tenant: TenantEntity;
  let token: string;
  let submodelIds: string[] = [];
  /** Per submodel, the idShorts of the top-level elements the import warned about (they hold stored violations). */
  const flawed = new Map<string, Set<string>>();

  const api = () => server.api(tenant.name);
  const request = (method: string, url: string, body?: unknown) =>
    fetch(`${api()}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const sm = (id: string) => `/submodels/${b64(id)}`;
  const el = (id: string, idShortPath: string) => `${sm(id)}/submodel-elements/${encodeURIComponent(idShortPath)}`;
  const getSubmodel = async (id: string): Promise<Json> => {
    const res = await request('GET', sm(id));
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  };
  const getElement = async (id: string, idShortPath: string): Promise<Json> => {
    const res = await request('GET', el(id, idShortPath));
    expect(res.status, `GET ${idShortPath}`).toBe(200);
    return (await res.json()) as Json;
  };
  /** Soft: every submodel is tried, and the failures name the submodel, the write and the answer. */
  const expect2xx = async (res: Response, what: string) => {
    const { status, text } = await outcome(res);
    expect.soft(status >= 200 && status < 300, `${what}: ${text}`).toBe(true);
    return status >= 200 && status < 300;
  };
  /** A 400 whose messages name the violation introduced (`reason`), and that changed nothing. */
  const expectRefused = async (id: string, res: Response, what: string, reason: RegExp, before: Json) => {
    const { status, text, all } = await outcome(res);
    expect.soft(status, `${what}: ${text}`).toBe(400);
    expect.soft(all, `${what}: the answer names the violation`).toMatch(reason);
    expect.soft(await getSubmodel(id), `${what} changed the submodel`).toEqual(before);
  };

  beforeAll(async () => {
    tenant = await server.createTenant({ showcase: false });
    const account = await newServiceAccount(server, tenant.organizationId);
    await assignRole(server, tenant.organizationId, { type: 'service-account', id: account.id }, 'contributor', tenant.id);
    token = await account.token();
    const form = new FormData();
    form.append('file', new Blob([fs.readFileSync(path.join(AASX_DIR, name))], { type: 'application/asset-administration-shell-package' }), name);
    const res = await fetch(`${api()}/upload`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } });
    const body = await json(res);
    expect(res.status, JSON.stringify(body).slice(0, 500)).toBe(200);
    submodelIds = body.submodels.map((s: { id: string }) => s.id);
    // The warnings name the JSON path of each violation: `submodel '<id>': $.submodelElements[<i>]...`.
    for (const id of submodelIds) {
      const tops = (await getSubmodel(id)).submodelElements as Json[];
      const prefix = `submodel '${id}': $.submodelElements[`;
      const indexes = (body.warnings as string[]).filter((w) => w.startsWith(prefix)).map((w) => parseInt(w.slice(prefix.length), 10));
      flawed.set(id, new Set(indexes.map((i) => String(tops[i].idShort))));
    }
  });

  it('is imported with its submodels, and the import warns about the violations they are stored with', () => {
    expect(submodelIds.length).toBeGreaterThan(0);
    // Without stored violations this file would prove nothing.
    for (const id of submodelIds) expect(flawed.get(id)!.size, `${id} holds stored violations`).toBeGreaterThan(0);
  });

  it('POST a Property at the top level: 201, and it reads back', async () => {
    for (const id of submodelIds) {
      const property = { modelType: 'Property', idShort: 'AddedByTest', valueType: 'xs:string', value: 'added', description: [{ language: 'en', text: 'Added by a client' }] };
      const res = await request('POST', `${sm(id)}/submodel-elements`, property);
      const { status, text } = await outcome(res);
      expect.soft(status, `${id}: POST AddedByTest: ${text}`).toBe(201);
      if (status === 201) expect.soft(await getElement(id, 'AddedByTest')).toEqual(property);
    }
  });

  it('POST a conforming child (no idShort, the list type) into the SubmodelElementLists: 201', async () => {
    for (const id of submodelIds) {
      const lists = typedLists(await getSubmodel(id));
      // One list whose stored children carry idShorts (AASd-120 stored), and one whose children do not.
      const chosen = [lists.find((l) => childrenHaveIdShorts(l.element)), lists.find((l) => !childrenHaveIdShorts(l.element))].filter((l): l is Found => !!l);
      for (const list of chosen) {
        const child = conformingChild(list.element)!;
        const res = await request('POST', el(id, list.path), child);
        const { status, text } = await outcome(res);
        expect.soft(status, `${id}: POST a ${String(child.modelType)} into ${list.path}: ${text}`).toBe(201);
      }
    }
  });

  it('GET a string Property, change its value and description, PUT it back: 2xx, and the change reads back', async () => {
    for (const id of submodelIds) {
      const found = walk((await getSubmodel(id)).submodelElements as Json[]).find(
        ({ element }) => element.modelType === 'Property' && element.valueType === 'xs:string' && element.idShort !== 'AddedByTest',
      );
      expect(found, `${id} has a string Property`).toBeDefined();
      const element = await getElement(id, found!.path);
      const changed = { ...element, value: 'Changed by a client', description: edited(element.description, 'edited') };
      if (await expect2xx(await request('PUT', el(id, found!.path), changed), `${id}: PUT ${found!.path}`)) {
        expect.soft(await getElement(id, found!.path)).toEqual(changed);
      }
    }
  });

  it('GET each top-level element, change its description, PUT it back: 2xx', async () => {
    for (const id of submodelIds) {
      for (const top of (await getSubmodel(id)).submodelElements as Json[]) {
        const at = String(top.idShort);
        const element = await getElement(id, at);
        const changed = { ...element, description: edited(element.description, 'reviewed') };
        if (await expect2xx(await request('PUT', el(id, at), changed), `${id}: PUT ${at}`)) {
          expect.soft((await getElement(id, at)).description).toEqual(changed.description);
        }
      }
    }
  });

  it('PUT an attachment on a File element (one added where the submodel has none): 2xx, and it reads back', async () => {
    for (const id of submodelIds) {
      let file = walk((await getSubmodel(id)).submodelElements as Json[]).find(({ element }) => element.modelType === 'File');
      if (!file) {
        const added = await request('POST', `${sm(id)}/submodel-elements`, { modelType: 'File', idShort: 'AttachmentByTest', contentType: 'application/pdf' });
        if (!(await expect2xx(added, `${id}: POST File AttachmentByTest`))) continue;
        file = { element: {}, path: 'AttachmentByTest' };
      }
      const form = new FormData();
      form.append('fileName', 'manual.pdf');
      form.append('file', new Blob(['%PDF-1.4 test'], { type: 'application/pdf' }), 'manual.pdf');
      const res = await fetch(`${api()}${el(id, file.path)}/attachment`, { method: 'PUT', body: form, headers: { authorization: `Bearer ${token}` } });
      if (await expect2xx(res, `${id}: PUT ${file.path}/attachment`)) {
        const got = await request('GET', `${el(id, file.path)}/attachment`);
        expect.soft(got.status).toBe(200);
        expect.soft(await got.text()).toBe('%PDF-1.4 test');
      }
    }
  });

  it('GET the submodel, change its description, PUT it back: 2xx, and the change reads back', async () => {
    for (const id of submodelIds) {
      const submodel = await getSubmodel(id);
      const changed = { ...submodel, description: edited(submodel.description, 'revised') };
      if (await expect2xx(await request('PUT', sm(id), changed), `${id}: PUT the submodel`)) {
        expect.soft(await getSubmodel(id)).toEqual(changed);
      }
    }
  });

  it('an element write that introduces a violation is 400 and changes nothing', async () => {
    for (const id of submodelIds) {
      const before = await getSubmodel(id);
      const bad = { modelType: 'Property', idShort: 'BadNumber', valueType: 'xs:int', value: 'twelve' };
      await expectRefused(id, await request('POST', `${sm(id)}/submodel-elements`, bad), `${id}: POST an xs:int Property 'twelve'`, VALUE_TYPE, before);

      const lists = typedLists(before);
      expect(lists.length, `${id} has a SubmodelElementList`).toBeGreaterThan(0);
      // AASd-120 into a list already stored with that violation, and into one without it.
      for (const list of [lists.find((l) => childrenHaveIdShorts(l.element)), lists.find((l) => !childrenHaveIdShorts(l.element))]) {
        if (!list) continue;
        const named = conformingChild(list.element, { idShort: 'NamedChild' })!;
        await expectRefused(id, await request('POST', el(id, list.path), named), `${id}: POST a child with an idShort into ${list.path} (AASd-120)`, /AASd-120/, before);
      }
      // AASd-108: a child of another type than the list's.
      const list = lists[0];
      const other = list.element.typeValueListElement === 'Property' ? minimal('MultiLanguageProperty')! : minimal('Property')!;
      await expectRefused(id, await request('POST', el(id, list.path), other), `${id}: POST a ${String(other.modelType)} into ${list.path} of ${String(list.element.typeValueListElement)} (AASd-108)`, /AASd-108/, before);

      // PUT a string Property back with a value its new valueType does not allow.
      const property = walk(before.submodelElements as Json[]).find(({ element }) => element.modelType === 'Property' && element.valueType === 'xs:string');
      const broken = { ...(await getElement(id, property!.path)), valueType: 'xs:int', value: 'twelve' };
      await expectRefused(id, await request('PUT', el(id, property!.path), broken), `${id}: PUT ${property!.path} as xs:int 'twelve'`, VALUE_TYPE, before);
    }
  });

  it('a whole-submodel PUT that introduces a violation is 400 and changes nothing', async () => {
    for (const id of submodelIds) {
      const before = await getSubmodel(id);
      const withBadProperty = structuredClone(before);
      (withBadProperty.submodelElements as Json[]).push({ modelType: 'Property', idShort: 'BadNumber', valueType: 'xs:int', value: 'twelve' });
      await expectRefused(id, await request('PUT', sm(id), withBadProperty), `${id}: PUT the submodel with an xs:int Property 'twelve'`, VALUE_TYPE, before);

      // An idShort on a new child of a list: AASd-120, also where the list already has that violation stored.
      for (const list of [typedLists(before).find((l) => childrenHaveIdShorts(l.element)), typedLists(before).find((l) => !childrenHaveIdShorts(l.element))]) {
        if (!list) continue;
        const copy = structuredClone(before);
        const target = typedLists(copy).find((l) => l.path === list.path)!.element;
        target.value = [...childrenOf(target), conformingChild(target, { idShort: 'NamedChild' })!];
        await expectRefused(id, await request('PUT', sm(id), copy), `${id}: PUT the submodel with a named child in ${list.path} (AASd-120)`, /AASd-120/, before);
      }
    }
  });
  it('DELETE a child of a SubmodelElementList and a top-level element: 204, and they are gone', async () => {
    for (const id of submodelIds) {
      const submodel = await getSubmodel(id);
      const list = walk(submodel.submodelElements as Json[]).find(({ element }) => element.modelType === 'SubmodelElementList' && childrenOf(element).length > 1);
      if (list) {
        const children = childrenOf(list.element).length;
        const last = `${list.path}[${children - 1}]`;
        if (await expect2xx(await request('DELETE', el(id, last)), `${id}: DELETE ${last}`)) {
          expect.soft(childrenOf(await getElement(id, list.path))).toHaveLength(children - 1);
        }
      }
      // A UI deletes what the template makes optional: the last such top-level element, else the last one; one
      // without stored violations, so that those stay and the delete is judged beside them.
      const tops = (submodel.submodelElements as Json[]).filter((e) => !flawed.get(id)!.has(String(e.idShort)));
      const optional = (e: Json) => ((e.qualifiers as Json[] | undefined) ?? []).some((q) => /cardinality/i.test(String(q.type)) && /^ZeroTo/.test(String(q.value)));
      const victim = String(([...tops].reverse().find(optional) ?? tops[tops.length - 1]).idShort);
      if (await expect2xx(await request('DELETE', el(id, victim)), `${id}: DELETE ${victim}`)) {
        expect.soft((await request('GET', el(id, victim))).status).toBe(404);
      }
    }
  });
});
