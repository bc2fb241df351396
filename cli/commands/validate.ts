import { resolve, sep } from 'node:path';
import {
  formatDiagnostics,
  hasErrors,
  loadDefinitions,
  summarizeDiagnostics,
  type Diagnostic,
} from '../../engine/definitions/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(
  io: CommandIO,
  paths: string[],
  options: { json?: boolean; project?: boolean },
): Promise<number> {
  const targets = paths.map((p) => resolve(io.cwd, p));
  const { set, diagnostics } = await loadDefinitions({
    cwd: io.cwd,
    home: neoHome(io.env),
    paths: targets,
    noProject: options.project === false,
  });
  const shown =
    targets.length === 0
      ? diagnostics
      : diagnostics.filter((d) => d.span === undefined || targets.some((t) => isInside(d.span!.file, t)));
  if (options.json) {
    writeJson(io.stdout, shown);
    return hasErrors(shown) ? EXIT.usage : EXIT.ok;
  }
  const color = useColor(io.stderr, io.env);
  if (shown.length > 0) writeLine(io.stderr, `${formatDiagnostics(shown, { color, cwd: io.cwd })}\n`);
  const p = painter(useColor(io.stdout, io.env));
  const count = set.all().length;
  if (hasErrors(shown)) {
    writeLine(io.stderr, `${p.red('✗')} ${summarizeDiagnostics(shown)}`);
    return EXIT.usage;
  }
  writeLine(
    io.stdout,
    `${p.green('✓')} ${count} definitions valid · set ${set.hash.slice(0, 8)}${warningsNote(shown)}`,
  );
  return EXIT.ok;
}

function warningsNote(diagnostics: readonly Diagnostic[]): string {
  return diagnostics.length === 0 ? '' : ` · ${summarizeDiagnostics(diagnostics)}`;
}

function isInside(file: string, target: string): boolean {
  return file === target || file.startsWith(target.endsWith(sep) ? target : target + sep);
}
