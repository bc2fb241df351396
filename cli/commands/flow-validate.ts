import { formatDiagnostics, summarizeDiagnostics } from '../../engine/definitions/index.js';
import { compileFlowFile, loadPlanDefinitions } from '../../engine/flow/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';

export async function run(
  io: CommandIO,
  planFile: string,
  options: { json?: boolean; backend?: string },
): Promise<number> {
  const loaded = await loadPlanDefinitions({ planFile, cwd: io.cwd, home: neoHome(io.env) });
  const errors = loaded.diagnostics.filter((d) => d.severity === 'error');
  const compiled =
    errors.length === 0
      ? compileFlowFile(loaded.set, loaded.file, {
          home: neoHome(io.env),
          ...(options.backend === undefined ? {} : { backendOverride: options.backend, requireBackend: true }),
        })
      : undefined;
  const problems = compiled?.problems ?? [];
  if (options.json) {
    writeJson(io.stdout, { file: loaded.file, diagnostics: loaded.diagnostics, problems });
    return errors.length + problems.length > 0 ? EXIT.usage : EXIT.ok;
  }
  const p = painter(useColor(io.stderr, io.env));
  if (loaded.diagnostics.length > 0)
    writeLine(
      io.stderr,
      `${formatDiagnostics(loaded.diagnostics, { color: useColor(io.stderr, io.env), cwd: io.cwd })}\n`,
    );
  for (const problem of problems) {
    writeLine(
      io.stderr,
      `${loaded.file}: ${p.red(`error[${problem.code}]`)}: ${problem.step === undefined ? '' : `step ${problem.step}: `}${problem.message}${problem.hint ? `\n  ${p.cyan('hint')}: ${problem.hint}` : ''}`,
    );
  }
  if (errors.length > 0 || problems.length > 0) {
    writeLine(
      io.stderr,
      `${p.red('✗')} ${errors.length > 0 ? summarizeDiagnostics(loaded.diagnostics) : `${problems.length} problem${problems.length === 1 ? '' : 's'}`}`,
    );
    return EXIT.usage;
  }
  const out = painter(useColor(io.stdout, io.env));
  writeLine(
    io.stdout,
    `${out.green('✓')} flow ${compiled!.plan.name}: ${compiled!.plan.steps.length} step${compiled!.plan.steps.length === 1 ? '' : 's'} valid${loaded.subflows.length > 0 ? ` (with ${loaded.subflows.length} sub-flow${loaded.subflows.length === 1 ? '' : 's'})` : ''}`,
  );
  return EXIT.ok;
}
