import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TestServer, json, startTestServer } from '../support/server';

/**
 * The GraphQL console must work on a factory network without internet: the page and everything it loads come
 * from this server, and nothing it loads pulls in a script, style sheet or font from elsewhere.
 */

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer(inject('databaseUrl'));
});
afterAll(() => server?.close());

const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, server.url), { headers, redirect: 'manual' });

interface PageRef {
  tag: 'script' | 'link';
  ref: string;
}

/** The `src` of every `<script>` and the `href` of every `<link>` in an HTML page. */
function pageRefs(html: string): PageRef[] {
  const refs: PageRef[] = [];
  for (const [tagText, tag] of html.matchAll(/<(script|link)\b[^>]*>/gi)) {
    const attr = tag.toLowerCase() === 'script' ? 'src' : 'href';
    const value = new RegExp(`\\b${attr}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tagText);
    if (value) refs.push({ tag: tag.toLowerCase() as PageRef['tag'], ref: value[1] ?? value[2] ?? value[3] });
  }
  return refs;
}

/**
 * What in a script would make a browser load something from another host. Plain URL strings (links to docs,
 * XML namespaces, error decoder links) do not load anything and are allowed.
 */
const REMOTE_LOADS_IN_JS: RegExp[] = [
  /<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)\s*=\s*\\?["']?(?:https?:)?\/\//i, // markup with a remote resource
  /\.src\s*=\s*["'`](?:https?:)?\/\//, // script.src = 'https://...'
  /\bimportScripts\s*\(\s*["'`](?:https?:)?\/\//,
  /\bimport\s*\(\s*["'`](?:https?:)?\/\//,
  /url\(\s*\\?["']?(?:https?:)?\/\//i, // inline CSS
  /@import\s+(?:url\()?\s*\\?["']?(?:https?:)?\/\//i,
  /\b(?:unpkg\.com|cdn\.jsdelivr\.net|cdnjs\.cloudflare\.com|esm\.sh|fonts\.googleapis\.com|fonts\.gstatic\.com)\b/i,
];

describe('GraphQL console (offline)', () => {
  it('serves an HTML page whose scripts and style sheets are all same-origin', async () => {
    const res = await get('/graphiql');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    // The browser enforces what the assertions below check: nothing from another origin.
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//i);

    const refs = pageRefs(html);
    expect(refs.filter((r) => r.tag === 'script').length).toBeGreaterThanOrEqual(4); // react, react-dom, graphiql, boot
    expect(refs.filter((r) => r.tag === 'link').length).toBeGreaterThanOrEqual(1); // graphiql.css
    const origin = new URL(server.url).origin;
    for (const { tag, ref } of refs) {
      // Relative to this server: no scheme, no protocol-relative `//host`.
      expect(ref, ref).toMatch(/^\/(?!\/)/);
      const url = new URL(ref, res.url);
      expect(url.origin, ref).toBe(origin);

      const asset = await fetch(url);
      expect(asset.status, ref).toBe(200);
      expect(asset.headers.get('content-type'), ref).toMatch(tag === 'script' ? /^(?:text|application)\/javascript\b/ : /^text\/css\b/);
      const body = await asset.text();
      // Vendor bundles are large; the boot script is small but not empty.
      expect(body.length, ref).toBeGreaterThan(ref.startsWith('/graphiql/assets/') ? 10_000 : 200);
    }
  });

  it('serves scripts that load nothing from another host', async () => {
    const html = await (await get('/graphiql')).text();
    const scripts = pageRefs(html).filter((r) => r.tag === 'script');
    for (const { ref } of scripts) {
      const body = await (await get(ref)).text();
      for (const pattern of REMOTE_LOADS_IN_JS) expect(body, `${ref} ${pattern}`).not.toMatch(pattern);
    }
  });

  it('serves style sheets without remote imports, images or fonts', async () => {
    const html = await (await get('/graphiql')).text();
    const sheets = pageRefs(html).filter((r) => r.tag === 'link');
    for (const { ref } of sheets) {
      const css = await (await get(ref)).text();
      expect(css, ref).not.toMatch(/@import/i);
      // Fonts and images are inlined (data:) or relative to this server.
      for (const [, target] of css.matchAll(/url\(\s*["']?([^"')\s]*)/gi)) {
        expect(target, ref).toMatch(/^(?:data:|(?![a-z][a-z0-9+.-]*:|\/\/))/i);
      }
    }
  });

  it('sends browsers asking /graphql for HTML to the console', async () => {
    const res = await get('/graphql', { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location') ?? '', server.url).pathname).toBe('/graphiql');
  });

  it('answers GraphQL POSTs on /graphql', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ data: { __typename: 'Query' } });
  });

  const expectNotFound = async (name: string) => {
    const res = await get(`/graphiql/assets/${name}`);
    expect(res.status, name).toBe(404);
    expect(res.headers.get('content-type'), name).toMatch(/^application\/json/);
    const body = await json(res);
    expect(body.messages, name).toHaveLength(1);
    expect(body.messages[0], name).toMatchObject({ code: '404', messageType: 'Error' });
  };

  it('answers an unknown asset with 404 and a Result', async () => {
    for (const name of ['nope.js', 'graphiql.min.js.map', '..%2F..%2Fpackage.json']) await expectNotFound(name);
  });

  it('does not take names every plain object has for assets', async () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) await expectNotFound(name);
  });
});
