/**
 * A flow step's `script:` names a file beside the plan that validates as a script: checked when
 * the flow is, so `neo flow validate`, `neo validate` and `--dry-run` say so at the field, before
 * a run starts and makes its workspace. A flow reads its scripts from the plan's folder where the plan lies (the
 * checkout), never from the run's workspace: a step's agent cannot rewrite the script a later
 * step plays. A path that holds `${{ }}` is known only at run time.
 */
import { statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { readRegularFile } from '../util/regular-file.js';
import type { Definition } from './definition.js';
import type { Diagnostic } from './diagnostic.js';
import { toPointer } from './diagnostic.js';
import { checkScriptSource } from './script-text.js';

/** A script bigger than this is left to the backend's own read when the step starts. */
const MAX_SCRIPT_BYTES = 4 << 20;

/** Each step's literal `script:` with where it is in the flow and the file it names. */
function scriptsOf(
  flow: Definition<'flow'>,
): Array<{ step: string; script: string; file: string; at: Array<string | number> }> {
  const folder = dirname(flow.file);
  const lists = [
    ['steps', flow.data.steps],
    ['finally', flow.data.finally ?? []],
  ] as const;
  return lists.flatMap(([list, steps]) =>
    steps.flatMap((step, index) =>
      step.script === undefined || step.script.includes('${{')
        ? []
        : [{ step: step.id, script: step.script, file: resolve(folder, step.script), at: [list, index, 'script'] }],
    ),
  );
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/**
 * DEF_SCRIPT_NOT_FOUND at each `script:` that names no file, DEF_SCRIPT_INVALID at each whose
 * file does not validate (its first problem at file:line:col; `neo script validate` shows all).
 */
export function checkScriptFiles(flow: Definition<'flow'>): Diagnostic[] {
  return scriptsOf(flow).flatMap((entry): Diagnostic[] => {
    const at = {
      span: flow.source.spanOf(flow.source.locate(entry.at.map(String)).node),
      pointer: toPointer(entry.at),
    };
    if (!isFile(entry.file))
      return [
        {
          code: 'DEF_SCRIPT_NOT_FOUND',
          severity: 'error',
          message: `step \`${entry.step}\` plays script ${entry.script}, which is not a file`,
          ...at,
          hint: `a step's \`script:\` is relative to the plan's folder (${relative(process.cwd(), dirname(flow.file)) || '.'}): write the file there, or fix the path`,
        },
      ];
    const bytes = readRegularFile(entry.file, MAX_SCRIPT_BYTES);
    if (bytes === undefined || bytes === 'missing') return [];
    const shown = relative(process.cwd(), entry.file) || entry.file;
    const errors = checkScriptSource(bytes.toString('utf8'), shown).diagnostics.filter((d) => d.severity === 'error');
    const first = errors[0];
    if (first === undefined) return [];
    const where = first.span === undefined ? shown : `${shown}:${first.span.start.line}:${first.span.start.column}`;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    return [
      {
        code: 'DEF_SCRIPT_INVALID',
        severity: 'error',
        message: `step \`${entry.step}\` plays script ${entry.script}, which is invalid: ${where}: ${first.message}${more}`,
        ...at,
        hint: `run \`neo script validate ${shown}\` for every problem with a code frame`,
      },
    ];
  });
}

/** What the check depends on besides the flow's text: which of its scripts exist, and their size and time (a reference cache key). */
export function scriptFilesKey(flow: Definition<'flow'>): string {
  return scriptsOf(flow)
    .map((entry) => {
      const info = statSync(entry.file, { throwIfNoEntry: false });
      return `${entry.file}=${info?.isFile() === true ? `${info.size}:${info.mtimeMs}` : 0}`;
    })
    .join(',');
}
