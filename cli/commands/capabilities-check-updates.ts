import { catalogEntries, refreshPass, updateFetchOptions } from '../../engine/capabilities/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

/**
 * `neo capabilities check-updates`: a newer version or commit for every pinned source (npm
 * registry, GitHub API; NEO_NPM_REGISTRY_URL / NEO_GITHUB_API_URL point elsewhere). Reports
 * only: a pin is bumped by a reviewed catalog edit, never here.
 */
export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const { set } = await loadSetForCommand(io);
  const findings = await refreshPass(neoHome(io.env), () => catalogEntries(set), updateFetchOptions(io.env));
  if (options.json) {
    writeJson(io.stdout, findings);
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const rows = findings.map((f) => [
    p.bold(f.id),
    f.status === 'update' ? p.yellow('update') : f.status === 'failed' ? p.red('failed') : f.status,
    f.source,
    f.latest === undefined ? (f.detail ?? '') : `${f.pinned.slice(0, 12)} -> ${f.latest.slice(0, 12)}`,
  ]);
  writeLine(io.stdout, table([['ID', 'STATUS', 'SOURCE', 'LATEST'].map((h) => p.dim(h)), ...rows]));
  const updates = findings.filter((f) => f.status === 'update').length;
  writeLine(io.stdout, p.dim(`${updates} update(s) available; pins are changed by editing the catalog, never by neo`));
  return EXIT.ok;
}
