import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';

/** A file of an installed package, served as it is (the consoles work offline: nothing comes from a CDN). */
export interface StaticAsset {
  file: string;
  type: string;
}

/** The path of `file` inside the installed package `pkg`. */
export const packageFile = (pkg: string, file: string) => path.join(path.dirname(require.resolve(`${pkg}/package.json`)), file);

/** Serves `assets` by name at `{prefix}/assets/:name`, cached for a day; other names fall through (404). */
export function serveAssets(router: Router, prefix: string, assets: Record<string, StaticAsset>): void {
  router.get(`${prefix}/assets/:name`, (ctx) => {
    if (!Object.hasOwn(assets, ctx.params.name)) return;
    const asset = assets[ctx.params.name];
    ctx.type = asset.type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(asset.file);
  });
}
