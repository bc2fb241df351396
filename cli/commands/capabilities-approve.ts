import { userInfo } from 'node:os';
import {
  approve,
  catalogEntries,
  closeRequest,
  needsApproval,
  pinnedIdentity,
} from '../../engine/capabilities/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { capabilityEntry } from './capabilities-entry.js';

/**
 * `neo capabilities approve <id>`: the owner approves a T2/T3 entry at its current pinned
 * identity (a later pin bump asks again). The ledger is in NEO_HOME only: nothing a project
 * holds can approve.
 */
export async function run(io: CommandIO, id: string, options: { json?: boolean }): Promise<number> {
  const home = neoHome(io.env);
  const { set } = await loadSetForCommand(io);
  const entry = capabilityEntry(catalogEntries(set), id);
  const identity = pinnedIdentity(entry.data);
  const p = painter(useColor(io.stdout, io.env));
  if (!needsApproval(entry.data.trustTier)) {
    if (options.json)
      writeJson(io.stdout, { id: entry.id, tier: entry.data.trustTier, approved: false, needed: false });
    else writeLine(io.stdout, `${entry.id} is ${entry.data.trustTier}: it needs no approval`);
    return EXIT.ok;
  }
  const approval = await approve(home, entry.id, identity, `cli (${safeUser()})`);
  await closeRequest(home, entry.id, 'approved');
  if (options.json) {
    writeJson(io.stdout, {
      id: entry.id,
      tier: entry.data.trustTier,
      approved: true,
      identity,
      at: approval.approvedAt,
    });
    return EXIT.ok;
  }
  writeLine(io.stdout, `${p.green('✓')} ${entry.id} approved at ${identity}`);
  writeLine(io.stdout, '  the next session in a project that calls for it gets it');
  return EXIT.ok;
}

function safeUser(): string {
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}
