/**
 * A flow step's `script:` names a file beside the plan: checked when the flow is, so `neo flow
 * validate`, `neo validate` and `--dry-run` say so at the field, before a run starts and makes
 * its workspace. A flow reads its scripts from the plan's folder where the plan lies (the
 * checkout), never from the run's workspace: a step's agent cannot rewrite the script a later
 * step plays. A path that holds `${{ }}` is known only at run time.
 */
import { statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import type { Definition } from './definition.js';
import type { Diagnostic } from './diagnostic.js';
import { toPointer } from './diagnostic.js';

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

/** DEF_SCRIPT_NOT_FOUND at each `script:` that names no file. */
export function checkScriptFiles(flow: Definition<'flow'>): Diagnostic[] {
  return scriptsOf(flow)
    .filter((entry) => !isFile(entry.file))
    .map((entry) => ({
      code: 'DEF_SCRIPT_NOT_FOUND',
      severity: 'error' as const,
      message: `step \`${entry.step}\` plays script ${entry.script}, which is not a file`,
      span: flow.source.spanOf(flow.source.locate(entry.at.map(String)).node),
      pointer: toPointer(entry.at),
      hint: `a step's \`script:\` is relative to the plan's folder (${relative(process.cwd(), dirname(flow.file)) || '.'}): write the file there, or fix the path`,
    }));
}

/** What the check depends on besides the flow's text: which of its scripts exist (a reference cache key). */
export function scriptFilesKey(flow: Definition<'flow'>): string {
  return scriptsOf(flow)
    .map((entry) => `${entry.file}=${isFile(entry.file) ? 1 : 0}`)
    .join(',');
}
