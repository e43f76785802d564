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
