import { resolve } from 'node:path';
import { findRepoRoot, pinProject, TrustStore } from '../../engine/definitions/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(
  io: CommandIO,
  repo: string | undefined,
  options: { revoke?: boolean; list?: boolean; json?: boolean },
): Promise<number> {
  const home = neoHome(io.env);
  const store = new TrustStore(home);
  if (options.list) {
    const trusted = await store.list();
    if (options.json) writeJson(io.stdout, trusted);
    else if (trusted.length === 0) writeLine(io.stdout, 'no trusted repositories');
    else for (const entry of trusted) writeLine(io.stdout, `${entry.repo}  (since ${entry.trustedAt})`);
    return EXIT.ok;
  }
  const root = findRepoRoot(resolve(io.cwd, repo ?? '.'), { exclude: home });
  if (options.revoke) {
    const removed = await store.revoke(root);
    if (options.json) writeJson(io.stdout, { repo: root, trusted: false, changed: removed });
    else writeLine(io.stdout, removed ? `no longer trusting ${root}` : `${root} was not trusted`);
    return EXIT.ok;
  }
  // Pinned as the files read now: what changes their privileged content later waits for the next `neo trust`.
  const { projectDotenvPin } = await import('../../engine/agent/settings/index.js');
  const pins = { ...(await pinProject(root)), ...(await projectDotenvPin(root)) };
  const files = Object.keys(pins).sort();
  const key = await store.trust(root, pins);
  if (options.json) {
    writeJson(io.stdout, { repo: key, trusted: true, pinned: files });
    return EXIT.ok;
  }
  writeLine(io.stdout, `trusted ${key}: its driver personas and postures above acceptEdits now apply`);
  writeLine(
    io.stdout,
    files.length === 0
      ? 'pinned no file: none has privileged content yet; one added later applies after `neo trust` again'
      : `pinned the privileged content of ${files.length === 1 ? 'one file' : `${files.length} files`} (a later change to it needs \`neo trust\` again):`,
  );
  for (const file of files) writeLine(io.stdout, `  ${file}`);
  return EXIT.ok;
}
