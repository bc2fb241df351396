// Regenerates the control plane's screenshots in docs/images: runs the browser tests (which
// write fresh ones to test-results/web-ui and test-results/web-control on every run) against
// the built neo, then copies each as docs/images/control-plane-<name>.png.
// Usage: npm run build && node scripts/screenshots.mjs
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const tests = ['tests/e2e/web-ui.test.ts', 'tests/e2e/web-control.test.ts'];
execFileSync(join(root, 'node_modules', '.bin', 'vitest'), ['run', ...tests], { cwd: root, stdio: 'inherit' });
let copied = 0;
for (const folder of ['web-ui', 'web-control']) {
  const from = join(root, 'test-results', folder);
  if (!existsSync(from)) continue;
  for (const file of readdirSync(from).filter((f) => f.endsWith('.png'))) {
    copyFileSync(join(from, file), join(root, 'docs', 'images', `control-plane-${file}`));
    copied++;
  }
}
console.log(`screenshots: ${copied} copied to docs/images`);
