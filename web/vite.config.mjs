// The web UI of `neo serve`: Preact, built by Vite into dist/web (part of `npm run build`),
// served by the server from the package. Everything is bundled: no CDN, works offline.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // One script, one stylesheet: the CSP allows only this origin's files.
    modulePreload: false,
  },
});
