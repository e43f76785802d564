import fs from 'node:fs';
import path from 'node:path';
import Router, { RouterContext } from '@koa/router';

/**
 * The GraphiQL playground, served entirely from this server's installed packages: factory networks have no
 * internet, so nothing may come from a CDN. React 18's UMD builds and GraphiQL 3's bundle are loaded as-is.
 */
const packageFile = (pkg: string, file: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);
const ASSETS: Record<string, { file: string; type: string }> = {
  'react.js': { file: packageFile('react', 'umd/react.production.min.js'), type: 'text/javascript' },
  'react-dom.js': { file: packageFile('react-dom', 'umd/react-dom.production.min.js'), type: 'text/javascript' },
  'graphiql.js': { file: packageFile('graphiql', 'graphiql.min.js'), type: 'text/javascript' },
  'graphiql.css': { file: packageFile('graphiql', 'graphiql.min.css'), type: 'text/css' },
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Asset platform · GraphQL</title>
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <link rel="stylesheet" href="/graphiql/assets/graphiql.css">
  <style>html, body, #graphiql { height: 100%; margin: 0; }</style>
</head>
<body>
  <div id="graphiql">Loading the GraphQL console…</div>
  <script src="/graphiql/assets/react.js"></script>
  <script src="/graphiql/assets/react-dom.js"></script>
  <script src="/graphiql/assets/graphiql.js"></script>
  <script src="/graphiql/console.js"></script>
</body>
</html>
`;

// Kept out of the page so a strict Content-Security-Policy (no inline script) holds.
const BOOT = `const fetcher = GraphiQL.createFetcher({ url: new URL('/graphql', location.href).toString() });
const defaultQuery = '# Paste a bearer token into Headers as {"Authorization": "Bearer ..."} for tenants not in showcase mode.\\n' +
  'query Shells {\\n  shells(tenant: "default", limit: 10) {\\n    result { id idShort assetInformation { assetKind globalAssetId } }\\n    pagingMetadata { cursor }\\n  }\\n}\\n';
ReactDOM.createRoot(document.getElementById('graphiql')).render(
  React.createElement(GraphiQL, { fetcher, defaultQuery, shouldPersistHeaders: true }),
);
`;

const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; font-src 'self' data:";

export function createConsoleRouter(): Router {
  const router = new Router();
  const page = (ctx: RouterContext) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', CSP);
    ctx.body = PAGE;
  };
  router.get('/graphiql', page);
  router.get('/graphiql/console.js', (ctx) => {
    ctx.type = 'text/javascript';
    ctx.body = BOOT;
  });
  router.get('/graphiql/assets/:name', (ctx) => {
    if (!Object.hasOwn(ASSETS, ctx.params.name)) return;
    const asset = ASSETS[ctx.params.name];
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(asset.file);
  });
  return router;
}
