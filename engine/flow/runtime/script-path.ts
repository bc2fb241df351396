import { resolve } from 'node:path';
import type { StepError } from '../core/state.js';

/**
 * A `script:` with `${{ }}` is read from the folder its fixed part names, never elsewhere: the
 * values it is rendered with may come from a step's outputs (data a confined step wrote), and a
 * `..` among them would have neo read a file of the host — or one the agent wrote in its
 * workspace — as the step's script.
 */
export function scriptOutsideItsFolder(template: string, rendered: string): StepError | undefined {
  const fixed = template.slice(0, template.indexOf('${{'));
  const folder = fixed.slice(0, fixed.lastIndexOf('/') + 1);
  if (resolve(rendered).startsWith(folder) && !rendered.slice(folder.length).split('/').includes('..'))
    return undefined;
  return {
    code: 'FLOW_SCRIPT_OUTSIDE',
    message: `script ${rendered} is outside ${folder}, the folder its step's \`script:\` names; the values it was rendered with may not leave it`,
    hint: 'render only a file name into `script:` (no `/` or `..`), from values the plan controls',
  };
}
