import { resolve } from 'node:path';
import { formatDiagnostics, hasErrors, summarizeDiagnostics } from '../../engine/definitions/index.js';
import { loadModelScript } from '../../engine/model-server/index.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

/** `neo model check <file>`: 0 when the script is valid, 2 with positioned diagnostics when not. */
export async function run(io: CommandIO, file: string, options: { json?: boolean }): Promise<number> {
  const path = resolve(io.cwd, file);
  const { script, diagnostics } = await loadModelScript(path);
  if (options.json) {
    writeJson(io.stdout, diagnostics);
    return hasErrors(diagnostics) ? EXIT.usage : EXIT.ok;
  }
  if (diagnostics.length > 0)
    writeLine(io.stderr, `${formatDiagnostics(diagnostics, { color: useColor(io.stderr, io.env), cwd: io.cwd })}\n`);
  const p = painter(useColor(io.stdout, io.env));
  if (script === undefined) {
    writeLine(io.stderr, `${p.red('✗')} ${summarizeDiagnostics(diagnostics)}`);
    return EXIT.usage;
  }
  const note = diagnostics.length === 0 ? '' : ` · ${summarizeDiagnostics(diagnostics)}`;
  writeLine(
    io.stdout,
    `${p.green('✓')} ${file}: ${script.turns.length} turn${script.turns.length === 1 ? '' : 's'}${note}`,
  );
  return EXIT.ok;
}
