import {
  approvalOf,
  catalogEntries,
  needsApproval,
  pinnedIdentity,
  readRequest,
  ruleLabel,
  sourceLabel,
  tokenScopeNote,
} from '../../engine/capabilities/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { loadSetForCommand } from '../load-set.js';
import { capabilityEntry } from './capabilities-entry.js';

/** `neo capabilities show <id>`: one entry, its pinned identity, its rules and where its approval stands. */
export async function run(io: CommandIO, id: string, options: { json?: boolean }): Promise<number> {
  const home = neoHome(io.env);
  const { set } = await loadSetForCommand(io);
  const entry = capabilityEntry(catalogEntries(set), id);
  const identity = pinnedIdentity(entry.data);
  const approval = await approvalOf(home, entry.id);
  const request = await readRequest(home, entry.id);
  const gate = !needsApproval(entry.data.trustTier)
    ? 'passes (no approval needed)'
    : approval?.identity === identity
      ? `approved ${approval.approvedAt} by ${approval.by}`
      : approval !== undefined
        ? `approval is for another pin (${approval.identity}): asks again`
        : request?.declinedAt !== undefined && request.identity === identity
          ? `declined ${request.declinedAt}`
          : request !== undefined
            ? `awaiting approval (requested ${request.requestedAt})`
            : 'not approved';
  const note = tokenScopeNote(entry);
  if (options.json) {
    writeJson(io.stdout, {
      id: entry.id,
      layer: entry.layer,
      file: entry.file,
      identity,
      gate,
      ...entry.data,
      tokenScopeNote: note,
    });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  const d = entry.data;
  writeLine(io.stdout, `${p.bold(entry.id)}  ${d.trustTier}  ${d.displayName ?? ''}`);
  writeLine(io.stdout, `  ${d.description.trim()}`);
  writeLine(io.stdout, `  source:   ${sourceLabel(d, false)}`);
  writeLine(io.stdout, `  identity: ${identity}`);
  writeLine(io.stdout, `  gate:     ${gate}`);
  writeLine(io.stdout, `  origin:   ${entry.layer} ${entry.file}`);
  writeLine(io.stdout, `  detect:   ${d.detect.map(ruleLabel).join(' | ')}`);
  const provides = [
    ...Object.keys(d.provides.mcpServers ?? {}).map((n) => `mcp:${n}`),
    ...(d.provides.skills ?? []).map((s) => `skill:${s}`),
    ...(d.provides.instructions ? ['instructions'] : []),
  ];
  writeLine(io.stdout, `  provides: ${provides.join(', ')}`);
  if (d.authEnv?.length) writeLine(io.stdout, `  authEnv:  ${d.authEnv.join(', ')}`);
  if (note !== undefined) writeLine(io.stdout, p.yellow(`  note: ${note}`));
  return EXIT.ok;
}
