import { resolve } from 'node:path';
import { stat } from 'node:fs/promises';
import {
  buildProjectProfile,
  catalogEntries,
  isApproved,
  needsApproval,
  pinnedIdentity,
} from '../../engine/capabilities/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, table, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';

/**
 * `neo capabilities detect [path]`: the project profile of a folder (default: here) — which
 * entries its files call for, on what evidence, and whether each would be provisioned or waits
 * for the owner's approval. Writes the profile cache, provisions nothing, files no request.
 */
export async function run(io: CommandIO, path: string | undefined, options: { json?: boolean }): Promise<number> {
  const root = resolve(io.cwd, path ?? '.');
  if (!(await stat(root).catch(() => undefined))?.isDirectory())
    throw new UsageError('CLI_BAD_ARGUMENT', `not a folder: ${root}`, { hint: 'name the project folder to detect' });
  const home = neoHome(io.env);
  const { set } = await loadSetForCommand({ ...io, cwd: root });
  const catalog = catalogEntries(set);
  const profile = await buildProjectProfile(home, root, catalog);
  const byId = new Map(catalog.map((e) => [e.id, e]));
  const rows = [];
  for (const detected of profile.detected) {
    const entry = byId.get(detected.id)!;
    const gated = needsApproval(entry.data.trustTier);
    const approved = gated && (await isApproved(home, entry.id, pinnedIdentity(entry.data)));
    rows.push({ ...detected, status: !gated ? 'passes' : approved ? 'approved' : 'awaiting approval' });
  }
  if (options.json) {
    writeJson(io.stdout, { root: profile.root, cached: profile.cached === true, detected: rows });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  writeLine(io.stdout, `${p.bold(profile.root)}${profile.cached ? p.dim(' (cached profile)') : ''}`);
  if (rows.length === 0) {
    writeLine(io.stdout, '  no capability detected');
    return EXIT.ok;
  }
  const lines = rows.map((r) => [p.bold(r.id), r.tier, r.status, r.evidence.join('; ')]);
  writeLine(io.stdout, table([['ID', 'TIER', 'GATE', 'EVIDENCE'].map((h) => p.dim(h)), ...lines]));
  return EXIT.ok;
}
