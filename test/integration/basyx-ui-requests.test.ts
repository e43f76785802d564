/* eslint-disable @typescript-eslint/no-explicit-any -- the Web UI builds its descriptor from untyped JSON */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, b64, json, sampleShell, startTestServer } from '../support/server';

/**
 * Requests of the Eclipse BaSyx AAS Web UI, in the shapes it sends. "Create Submodel" posts the submodel, then PUTs
 * the whole shell with the new submodel referenced as an ExternalReference whose one key is of type Submodel: one
 * meaning (the submodel of that id), so it is taken as the ModelReference the metamodel wants, and the submodel is
 * linked. Other references stay refused as before.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const headers = { 'content-type': 'application/json' };
const external = (value: string) => ({ type: 'ExternalReference', keys: [{ type: 'Submodel', value }] });

describe('BaSyx AAS Web UI: Create Submodel', () => {
  it('PUT /shells/{id} with the new submodel as an ExternalReference (keys: [{type: Submodel}]): 204, linked as a ModelReference', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    const shellId = 'urn:ui:shell';
    const shell = sampleShell(shellId);
    expect((await fetch(`${api}/shells`, { method: 'POST', headers, body: JSON.stringify(shell) })).status).toBe(201);
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers, body: JSON.stringify({ modelType: 'Submodel', id: 'urn:ui:sm', idShort: 'New' }) })).status).toBe(201);

    const stored = await json(fetch(`${api}/shells/${b64(shellId)}`));
    const put = await fetch(`${api}/shells/${b64(shellId)}`, { method: 'PUT', headers, body: JSON.stringify({ ...stored, submodels: [...(stored.submodels ?? []), external('urn:ui:sm')] }) });
    expect(put.status, await put.clone().text()).toBe(204);
    const after = await json(fetch(`${api}/shells/${b64(shellId)}`));
    expect(after.submodels.at(-1)).toEqual({ type: 'ModelReference', keys: [{ type: 'Submodel', value: 'urn:ui:sm' }] });
    const refs = await json(fetch(`${api}/shells/${b64(shellId)}/submodel-refs`));
    expect(refs.result.map((r: { keys: { value: string }[] }) => r.keys[0].value)).toContain('urn:ui:sm');
    expect((await fetch(`${api}/shells/${b64(shellId)}/submodels/${b64('urn:ui:sm')}`)).status).toBe(200);

    // The same reference posted to submodel-refs, and in a new shell.
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers, body: JSON.stringify({ modelType: 'Submodel', id: 'urn:ui:sm2' }) })).status).toBe(201);
    const posted = await fetch(`${api}/shells/${b64(shellId)}/submodel-refs`, { method: 'POST', headers, body: JSON.stringify(external('urn:ui:sm2')) });
    expect(posted.status, await posted.clone().text()).toBe(201);
    expect((await json(posted)).type).toBe('ModelReference');
    const created = await fetch(`${api}/shells`, { method: 'POST', headers, body: JSON.stringify(sampleShell('urn:ui:shell2', { submodels: [external('urn:ui:sm')] })) });
    expect(created.status, await created.clone().text()).toBe(201);
    expect((await json(created)).submodels[0].type).toBe('ModelReference');
  });

  it('other external references as submodel references stay 400: a global reference, two keys', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    expect((await fetch(`${api}/shells`, { method: 'POST', headers, body: JSON.stringify(sampleShell('urn:ui:bad')) })).status).toBe(201);
    for (const ref of [
      { type: 'ExternalReference', keys: [{ type: 'GlobalReference', value: 'urn:ui:sm' }] },
      { type: 'ExternalReference', keys: [{ type: 'Submodel', value: 'urn:ui:sm' }, { type: 'Property', value: 'P' }] },
    ]) {
      const res = await fetch(`${api}/shells/${b64('urn:ui:bad')}/submodel-refs`, { method: 'POST', headers, body: JSON.stringify(ref) });
      expect(res.status, JSON.stringify(ref)).toBe(400);
      const put = await fetch(`${api}/shells/${b64('urn:ui:bad')}`, { method: 'PUT', headers, body: JSON.stringify(sampleShell('urn:ui:bad', { submodels: [ref] })) });
      expect(put.status, JSON.stringify(ref)).toBe(400);
    }
  });
});

/**
 * "Edit AAS" PUTs the shell, then builds the shell's descriptor from the shell it sent (the endpoints of the
 * descriptor it read, `null` for what is not set, the asset's specific ids as `specificAssetId`) and PUTs it on the
 * registry, here the tenant's implicit one: what is derived, so 204 and nothing changes.
 */
function uiDescriptor(shell: Record<string, any>, endpoints: unknown) {
  const asset = shell.assetInformation ?? {};
  return {
    id: shell.id,
    endpoints,
    administration: shell.administration ?? null,
    assetKind: asset.assetKind ?? null,
    assetType: asset.assetType ?? null,
    description: shell.description ?? null,
    displayName: shell.displayName ?? null,
    extensions: shell.extensions ?? null,
    globalAssetId: asset.globalAssetId ?? null,
    idShort: shell.idShort ?? null,
    specificAssetId: asset.specificAssetIds ?? null,
    submodelDescriptors: null,
  };
}

describe('BaSyx AAS Web UI: Edit AAS', () => {
  const put = (url: string, body: unknown) => fetch(url, { method: 'PUT', headers, body: JSON.stringify(body) });
  const messageOf = async (res: Response) => ((await res.json()) as { messages: { text: string }[] }).messages.map((m) => m.text).join(' | ');

  it('PUT /shell-descriptors/{id} on the implicit registry after PUT /shells/{id}: 204, and the descriptor is the derived one', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    const shellId = 'urn:ui:edit:shell';
    const shell = sampleShell(shellId, {
      description: [{ language: 'en', text: 'A pump' }],
      administration: { version: '1', revision: '0' },
      assetInformation: { assetKind: 'Instance', globalAssetId: 'urn:ui:asset', specificAssetIds: [{ name: 'serial', value: '42' }] },
    });
    expect((await fetch(`${api}/shells`, { method: 'POST', headers, body: JSON.stringify(shell) })).status).toBe(201);
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers, body: JSON.stringify({ modelType: 'Submodel', id: 'urn:ui:edit:sm' }) })).status).toBe(201);
    expect((await fetch(`${api}/shells/${b64(shellId)}/submodel-refs`, { method: 'POST', headers, body: JSON.stringify(external('urn:ui:edit:sm')) })).status).toBe(201);

    // The dialog's save: the edited shell, then the descriptor made from it.
    const edited = { ...(await json(fetch(`${api}/shells/${b64(shellId)}`))), idShort: 'Renamed', displayName: [{ language: 'de', text: 'Pumpe' }] };
    expect((await put(`${api}/shells/${b64(shellId)}`, edited)).status).toBe(204);
    const existing = await json(fetch(`${api}/shell-descriptors/${b64(shellId)}`));
    const res = await put(`${api}/shell-descriptors/${b64(shellId)}`, uiDescriptor(edited, existing.endpoints));
    expect(res.status, await res.clone().text()).toBe(204);
    expect(res.headers.get('etag')).toBeTruthy();
    const after = await json(fetch(`${api}/shell-descriptors/${b64(shellId)}`));
    expect(after).toEqual(existing);
    expect(after.idShort).toBe('Renamed');
    expect(after.submodelDescriptors.map((d: { id: string }) => d.id)).toEqual(['urn:ui:edit:sm']);

    // The descriptor as read, PUT back whole: 204 too (under its If-Match; 412 under a stale one); and its
    // submodel descriptors, on both routes.
    const etag = res.headers.get('etag') as string;
    const guarded = await fetch(`${api}/shell-descriptors/${b64(shellId)}`, { method: 'PUT', headers: { ...headers, 'if-match': etag }, body: JSON.stringify(existing) });
    expect(guarded.status).toBe(204);
    const stale = await fetch(`${api}/shell-descriptors/${b64(shellId)}`, { method: 'PUT', headers: { ...headers, 'if-match': '"stale"' }, body: JSON.stringify(existing) });
    expect(stale.status).toBe(412);
    expect(await messageOf(stale)).toMatch(/entity tag/);
    const smDescriptor = existing.submodelDescriptors[0];
    expect((await put(`${api}/shell-descriptors/${b64(shellId)}/submodel-descriptors/${b64('urn:ui:edit:sm')}`, smDescriptor)).status).toBe(204);
    expect((await put(`${api}/submodel-descriptors/${b64('urn:ui:edit:sm')}`, smDescriptor)).status).toBe(204);
  });

  it('a descriptor that differs from the derived one is 409 naming the member and the explicit registry, and changes nothing; bad input 400, no shell 404', async () => {
    const tenant = await server.createTenant();
    const api = server.api(tenant.name);
    const shellId = 'urn:ui:edit:other';
    expect((await fetch(`${api}/shells`, { method: 'POST', headers, body: JSON.stringify(sampleShell(shellId)) })).status).toBe(201);
    expect((await fetch(`${api}/submodels`, { method: 'POST', headers, body: JSON.stringify({ modelType: 'Submodel', id: 'urn:ui:edit:sm2', idShort: 'Sm' }) })).status).toBe(201);
    const derived = await json(fetch(`${api}/shell-descriptors/${b64(shellId)}`));

    for (const body of [
      { ...derived, idShort: 'NotTheShells' },
      { ...derived, id: 'urn:ui:edit:another' },
      { ...derived, endpoints: [{ interface: 'AAS-3.0', protocolInformation: { href: 'https://elsewhere.invalid/shells/x' } }] },
      uiDescriptor({ ...sampleShell(shellId), assetInformation: { assetKind: 'Instance', specificAssetIds: [{ name: 'serial', value: '1' }] } }, derived.endpoints),
      { ...derived, unknownMember: 1 },
    ]) {
      const res = await put(`${api}/shell-descriptors/${b64(shellId)}`, body);
      expect(res.status, JSON.stringify(body)).toBe(409);
      const text = await messageOf(res);
      expect(text).toMatch(/implicit AAS registry derives this descriptor/);
      expect(text).toMatch(/explicit AAS registry instance at \{tenant_url\}\/\{instanceName\}\/api\/v3\.0\/shell-descriptors/);
    }
    expect(await messageOf(await put(`${api}/shell-descriptors/${b64(shellId)}`, { ...derived, idShort: 'NotTheShells' }))).toMatch(/'idShort' differs \(derived: "Sample"\)\.$/);
    const sm = await json(fetch(`${api}/submodel-descriptors/${b64('urn:ui:edit:sm2')}`));
    const smRes = await put(`${api}/submodel-descriptors/${b64('urn:ui:edit:sm2')}`, { ...sm, idShort: 'Changed' });
    expect(smRes.status).toBe(409);
    expect(await messageOf(smRes)).toMatch(/implicit submodel registry.*'idShort' differs/);
    expect(await json(fetch(`${api}/shell-descriptors/${b64(shellId)}`))).toEqual(derived);
    expect(await json(fetch(`${api}/submodel-descriptors/${b64('urn:ui:edit:sm2')}`))).toEqual(sm);

    // Bad input: not an object, not JSON; an id of no shell.
    expect((await put(`${api}/shell-descriptors/${b64(shellId)}`, [derived])).status).toBe(400);
    const broken = await fetch(`${api}/shell-descriptors/${b64(shellId)}`, { method: 'PUT', headers, body: '{"id":' });
    expect(broken.status).toBe(400);
    expect(await messageOf(broken)).toBeTruthy();
    const missing = await put(`${api}/shell-descriptors/${b64('urn:ui:edit:none')}`, { ...derived, id: 'urn:ui:edit:none' });
    expect(missing.status).toBe(404);
    expect(await messageOf(missing)).toBeTruthy();
    // Other writes stay 405, naming what the item also takes.
    const post = await fetch(`${api}/shell-descriptors`, { method: 'POST', headers, body: JSON.stringify(derived) });
    expect(post.status).toBe(405);
    const del = await fetch(`${api}/shell-descriptors/${b64(shellId)}`, { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, HEAD, PUT');
  });
});
