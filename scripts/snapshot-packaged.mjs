#!/usr/bin/env node
// Part of `npm run build`: validates the packaged layer (definitions/, personas/) once and writes
// dist/packaged-snapshot.json so start-up never re-parses it. Fails the build on any problem.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { loadDefinitions, formatDiagnostics } = await import(join(root, 'dist/engine/definitions/index.js'));
const { writePackagedSnapshot, SNAPSHOT_FILE } = await import(
  join(root, 'dist/engine/definitions/packaged-snapshot.js')
);
rmSync(join(root, SNAPSHOT_FILE), { force: true });
const empty = mkdtempSync(join(tmpdir(), 'neo-snapshot-'));
try {
  const { set, diagnostics } = await loadDefinitions({ packaged: root, home: empty, cwd: empty, noProject: true });
  if (diagnostics.length > 0) {
    console.error(formatDiagnostics(diagnostics, { cwd: root }));
    console.error('packaged definitions have problems; no snapshot written');
    process.exit(1);
  }
  const count = await writePackagedSnapshot(root, set);
  console.log(`packaged snapshot: ${count} definitions`);
} finally {
  rmSync(empty, { recursive: true, force: true });
}
