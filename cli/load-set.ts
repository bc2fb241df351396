import { hasErrors, loadDefinitions, summarizeDiagnostics, type LoadResult } from '../engine/definitions/index.js';
import { neoHome } from '../engine/util/neo-home.js';
import { painter, useColor, writeLine, type CommandIO } from './io.js';

/**
 * Loads every layer for a command that reads definitions. Problems do not stop it (the last
 * valid definitions still serve); a one-line note points at `neo validate`.
 */
export async function loadSetForCommand(io: CommandIO): Promise<LoadResult> {
  const result = await loadDefinitions({ cwd: io.cwd, home: neoHome(io.env) });
  if (hasErrors(result.diagnostics)) {
    const p = painter(useColor(io.stderr, io.env));
    writeLine(
      io.stderr,
      p.yellow(
        `note: definitions have problems (${summarizeDiagnostics(result.diagnostics)}); run \`neo validate\` to see them`,
      ),
    );
  }
  return result;
}
