import { resolve } from 'node:path';
import { findRepoRoot, TrustStore } from '../../engine/definitions/index.js';
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
  const key = await store.trust(root);
  if (options.json) writeJson(io.stdout, { repo: key, trusted: true });
  else writeLine(io.stdout, `trusted ${key}: its driver personas and postures above acceptEdits now apply`);
  return EXIT.ok;
}
