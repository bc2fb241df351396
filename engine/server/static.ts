/**
 * The web UI's files (dist/web, built by `npm run build`), served from the package: no CDN, no
 * network. Only files inside the folder are served — the request path is decoded once, must not
 * hold `..`, a backslash or a NUL, and its resolved path must stay in the folder. Any other
 * extension-less path is a UI route and gets index.html.
 */
import { readFile, realpath } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import type { Context } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export function staticFiles(webRoot: string | undefined) {
  const root = webRoot === undefined ? undefined : realpath(webRoot).catch(() => undefined);
  return async (c: Context): Promise<Response> => {
    const dir = await root;
    if (dir === undefined)
      return c.text('neo serve: the web UI is not built (run `npm run build`); the API is under /api\n', 404);
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return c.text('bad path\n', 400);
    }
    if (path.includes('\0') || path.includes('\\') || path.split('/').includes('..')) return c.text('bad path\n', 400);
    const wantsFile = extname(path) !== '';
    const file = wantsFile ? resolve(dir, `.${path}`) : join(dir, 'index.html');
    if (!file.startsWith(dir + sep)) return c.text('bad path\n', 400);
    const body = await readFile(file).catch(() => undefined);
    if (body === undefined) return c.text('not found\n', 404);
    c.header('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    // Vite names assets by content hash: they never change; index.html always may.
    c.header('Cache-Control', path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-store');
    return c.body(new Uint8Array(body));
  };
}
