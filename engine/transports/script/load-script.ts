import { readFile } from 'node:fs/promises';
import { checkScriptSource, type Diagnostic } from '../../definitions/index.js';
import { contentHash } from '../../util/content-hash.js';
import { UsageError } from '../../util/errors.js';
import { toPlan, type ScriptPlan } from './script-model.js';

/** The outcome of checking a script: the plan when it has no errors, and every diagnostic. */
export interface ScriptCheck {
  plan?: ScriptPlan;
  diagnostics: Diagnostic[];
}

/** A script that does not validate; `diagnostics` are positioned (file:line:col). */
export class ScriptInvalidError extends UsageError {
  readonly diagnostics: Diagnostic[];

  constructor(file: string, diagnostics: Diagnostic[]) {
    // One line: where the first problem is and what it is; the command in the hint shows them all.
    const errors = diagnostics.filter((d) => d.severity === 'error');
    const first = errors[0];
    const where = first?.span === undefined ? file : `${file}:${first.span.start.line}:${first.span.start.column}`;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    const detail = first === undefined ? '' : `: ${first.message}${first.hint === undefined ? '' : ` (${first.hint})`}`;
    super('TRANSPORT_SCRIPT_INVALID', `script ${where} is invalid${detail}${more}`, {
      hint: `run \`neo script validate ${file}\` for every problem with a code frame`,
    });
    this.diagnostics = diagnostics;
  }
}

/**
 * Parses and validates script text (engine/definitions checkScriptSource: syntax, schema, one
 * action per item) and makes the plan the player runs.
 */
export function checkScriptText(text: string, file: string): ScriptCheck {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const { diagnostics, script } = checkScriptSource(body, file);
  if (script === undefined) return { diagnostics };
  return { plan: toPlan(script, contentHash(body), file), diagnostics };
}

/** Reads and checks a script file; an unreadable file is a TRANSPORT_SCRIPT_NOT_FOUND error. */
export async function checkScriptFile(path: string): Promise<ScriptCheck> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(
      'TRANSPORT_SCRIPT_NOT_FOUND',
      `cannot read script ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        hint: "a flow step's `script:` is relative to the plan's folder; `neo session start --script` and `neo script play` read it from the working directory",
        cause: error,
      },
    );
  }
  return checkScriptText(text, path);
}

/** The plan, or a ScriptInvalidError carrying every diagnostic. */
export function planOrThrow(check: ScriptCheck, file: string): ScriptPlan {
  if (check.plan === undefined) throw new ScriptInvalidError(file, check.diagnostics);
  return check.plan;
}
