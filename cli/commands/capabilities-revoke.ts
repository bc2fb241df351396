import { catalogEntries, closeRequest, readRequest, revoke } from '../../engine/capabilities/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { capabilityEntry } from './capabilities-entry.js';

/**
 * `neo capabilities revoke <id>`: removes the owner's approval (sessions started from now on go
 * without it) and declines an open request, which is then not asked again until the pin changes.
 */
export async function run(io: CommandIO, id: string, options: { json?: boolean }): Promise<number> {
  const home = neoHome(io.env);
  const { set } = await loadSetForCommand(io);
  const entry = capabilityEntry(catalogEntries(set), id);
  const revoked = await revoke(home, entry.id);
  const request = await readRequest(home, entry.id);
  const declined = request !== undefined && request.declinedAt === undefined;
  if (declined) await closeRequest(home, entry.id, 'declined');
  if (options.json) {
    writeJson(io.stdout, { id: entry.id, revoked, declined });
    return EXIT.ok;
  }
  writeLine(
    io.stdout,
    revoked
      ? `${entry.id}: approval revoked; sessions started from now on go without it`
      : `${entry.id}: no approval to revoke`,
  );
  if (declined) writeLine(io.stdout, `${entry.id}: its approval request is declined`);
  return EXIT.ok;
}
