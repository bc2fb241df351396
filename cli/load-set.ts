import { relative } from 'node:path';
import {
  hasErrors,
  isUnpinnedWarning,
  loadDefinitions,
  summarizeDiagnostics,
  type LoadResult,
} from '../engine/definitions/index.js';
import { neoHome } from '../engine/util/neo-home.js';
import { painter, useColor, writeLine, type CommandIO } from './io.js';

/**
 * Loads every layer for a command that reads definitions. Problems do not stop it (the last
 * valid definitions still serve); a one-line note points at `neo validate`.
 */
export async function loadSetForCommand(io: CommandIO): Promise<LoadResult> {
  const result = await loadDefinitions({ cwd: io.cwd, home: neoHome(io.env) });
  const p = painter(useColor(io.stderr, io.env));
  // A trusted project's file changed since `neo trust`: say so, or the owner would not know why it does nothing.
  for (const d of result.set.untrusted) {
    if (!isUnpinnedWarning(d.message)) continue;
    const at =
      d.span === undefined ? '' : `${relative(io.cwd, d.span.file)}:${d.span.start.line}:${d.span.start.column}: `;
    writeLine(io.stderr, p.yellow(`${at}warning[${d.code}]: ${d.message}`));
  }
  if (hasErrors(result.diagnostics)) {
    writeLine(
      io.stderr,
      p.yellow(
        `note: definitions have problems (${summarizeDiagnostics(result.diagnostics)}); run \`neo validate\` to see them`,
      ),
    );
  }
  return result;
}
