import type { ExpressionScope } from '../expr/index.js';
import type { Flow, Step } from '../generated/flow.js';
import { didYouMean } from '../util/did-you-mean.js';
import { transitiveNeeds } from '../util/step-graph.js';
import type { Definition } from './definition.js';
import type { DefinitionSet } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { pointerToFieldPath, toPointer } from './diagnostic.js';
import type { YamlSource } from './source.js';
import { checkProtect } from './protect-check.js';
import { checkExpressionField, expressionFields, unevaluatedExpressions } from './flow-expression-check.js';
import {
  DEFAULT_MAX_POSTURE,
  commandRuleProblem,
  effortWithin,
  isGitPath,
  relativeInside,
  underCeiling,
  type Ceiling,
} from '../posture/index.js';
import { defined } from '../util/defined.js';
import { envName } from '../util/env-name.js';

/** The kind of a step, from which of its keys are set. */
export type StepKind = 'agent' | 'run' | 'approval' | 'flow';

/** The kinds a step's keys claim; exactly one is valid. */
export function stepKinds(step: Step): StepKind[] {
  const kinds: StepKind[] = [];
  if (step.persona !== undefined || step.backend !== undefined || step.brief !== undefined) kinds.push('agent');
  if (step.run !== undefined) kinds.push('run');
  if (step.approval !== undefined) kinds.push('approval');
  if (step.flow !== undefined) kinds.push('flow');
  return kinds;
}

export { transitiveNeeds } from '../util/step-graph.js';

/** Finds cycles in `needs`; each cycle is listed once, in order. */
export function findCycles(steps: readonly Step[]): string[][] {
  const needs = new Map(steps.map((s) => [s.id, (s.needs ?? []).filter((n) => steps.some((t) => t.id === n))]));
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[][] = [];
  const stack: string[] = [];
  const visit = (id: string) => {
    state.set(id, 'visiting');
    stack.push(id);
    for (const next of needs.get(id) ?? []) {
      if (state.get(next) === 'visiting') cycles.push(stack.slice(stack.indexOf(next)));
      else if (state.get(next) === undefined) visit(next);
    }
    stack.pop();
    state.set(id, 'done');
  };
  for (const step of steps) if (state.get(step.id) === undefined) visit(step.id);
  return cycles;
}

/** Checks a flow's steps, references and expressions against the definition set. */
export function checkFlow(flow: Definition<'flow'>, set: DefinitionSet): Diagnostic[] {
  const out: Diagnostic[] = [];
  const data: Flow = flow.data;
  // The parsed source is needed only for a problem's position: asked for then, not up front
  // (a valid flow's source is never parsed again).
  const source = (): YamlSource => flow.source;
  const err = (
    code: string,
    message: string,
    segments: Array<string | number>,
    hint?: string,
    related?: Diagnostic['related'],
  ): void => {
    out.push({
      code,
      severity: 'error',
      message,
      span: source().spanOf(source().locate(segments.map(String)).node),
      pointer: toPointer(segments),
      ...defined({ hint, related }),
    });
  };
  const steps = data.steps;
  const finallySteps = data.finally ?? [];
  const allIds = [...steps, ...finallySteps].map((s) => s.id);
  const inputNames = Object.keys(data.inputs ?? {});

  checkReference(set, 'backend', data.defaults?.backend, ['defaults', 'backend'], err);
  checkCommandRules(data.defaults?.allowCommands, ['defaults', 'allowCommands'], err);
  checkReference(set, 'policy', data.defaults?.policy, ['defaults', 'policy'], err);

  const firstIndex = new Map<string, Array<string | number>>();
  const firstByEnvName = new Map<string, { id: string; at: Array<string | number> }>();
  const reach = transitiveNeeds(steps);
  const lists: Array<['steps' | 'finally', readonly Step[]]> = [
    ['steps', steps],
    ['finally', finallySteps],
  ];
  for (const [list, group] of lists) {
    group.forEach((step, index) => {
      const at = (...rest: Array<string | number>) => [list, index, ...rest];
      const first = firstIndex.get(step.id);
      if (first) {
        err(
          'DEF_DUPLICATE_STEP',
          `step id \`${step.id}\` is used twice`,
          at('id'),
          'step ids must be unique in a flow',
          [{ message: 'first used here', span: source().spanOf(source().locate([...first, 'id'].map(String)).node) }],
        );
      } else {
        firstIndex.set(step.id, at());
        const variable = envName(step.id);
        const sharing = firstByEnvName.get(variable);
        if (sharing) {
          // Its results would replace the other's in a later command's environment (a failed
          // step's STATUS read as the other's `succeeded`), whichever `needs` lists last.
          err(
            'DEF_STEP_ENV_NAME',
            `step ids \`${step.id}\` and \`${sharing.id}\` both become NEO_STEP_${variable}_… in a later command's environment`,
            at('id'),
            'rename one of the two steps: ids that differ only in case or in `-`, `_` and `.` share their variables',
            [
              {
                message: `\`${sharing.id}\` is here`,
                span: source().spanOf(source().locate([...sharing.at, 'id'].map(String)).node),
              },
            ],
          );
        } else {
          firstByEnvName.set(variable, { id: step.id, at: at() });
        }
      }

      const kinds = stepKinds(step);
      if (kinds.length !== 1) {
        const field = pointerToFieldPath(toPointer(at()));
        err(
          'DEF_STEP_KIND',
          kinds.length === 0
            ? `step \`${step.id}\` does nothing: \`${field}\` needs one of persona/backend, run, approval or flow`
            : `step \`${step.id}\` mixes ${kinds.join(' and ')}: a step is exactly one kind`,
          at('id'),
          'split it into separate steps joined by `needs`',
        );
      }
      if (kinds.length === 1 && kinds[0] !== 'agent' && step.verify !== undefined) {
        // A gate judges an agent's turn; on any other step it would never run, and the step's
        // green would claim a check nobody made.
        err(
          'DEF_VERIFY_NOT_AGENT',
          `step \`${step.id}\` is a ${kinds[0]} step: \`verify\` gates an agent's turn and would never run here`,
          at('verify'),
          kinds[0] === 'run'
            ? 'a run step is judged by its exit code: put the check in `run:` (e.g. `run: make && npm test`) or in a step of its own'
            : 'put the check in a `run:` step after this one',
        );
      }
      checkReference(set, 'persona', step.persona, at('persona'), err);
      checkReference(set, 'backend', step.backend, at('backend'), err);
      checkReference(set, 'policy', step.policy, at('policy'), err);

      (step.needs ?? []).forEach((need, needIndex) => {
        if (list === 'finally' && steps.some((s) => s.id === need)) return;
        if (!allIds.includes(need)) {
          const suggestion = didYouMean(need, allIds);
          err(
            'DEF_UNKNOWN_STEP',
            `\`needs\` names unknown step \`${need}\``,
            at('needs', needIndex),
            suggestion ? `did you mean \`${suggestion}\`?` : `steps: ${allIds.join(', ')}`,
          );
        } else if (need === step.id) {
          err(
            'DEF_NEEDS_CYCLE',
            `step \`${step.id}\` needs itself`,
            at('needs', needIndex),
            'remove it from its own needs',
          );
        }
      });

      if (step.run !== undefined && step.run.includes('${{')) {
        err(
          'DEF_EXPR_IN_RUN',
          '`${{ }}` is not allowed in `run:`: values are never spliced into a shell command',
          at('run'),
          'pass the value through `env:` (e.g. `env: { TARGET: "${{ inputs.target }}" }`) and use "$TARGET"; inputs also arrive as NEO_INPUT_<NAME> and step outputs as NEO_STEP_<ID>_<OUTPUT>',
        );
      }
      const verifyRun = typeof step.verify === 'string' ? step.verify : step.verify?.run;
      if (verifyRun?.includes('${{')) {
        err(
          'DEF_EXPR_IN_RUN',
          '`${{ }}` is not allowed in a verify command: values are never spliced into a shell command',
          at('verify', ...(typeof step.verify === 'string' ? [] : ['run'])),
          'read the value from the environment instead (NEO_INPUT_<NAME>)',
        );
      }
      if (step.loop?.untilRun?.includes('${{')) {
        err(
          'DEF_EXPR_IN_RUN',
          '`${{ }}` is not allowed in `loop.untilRun`: values are never spliced into a shell command',
          at('loop', 'untilRun'),
          'read the value from the environment instead (NEO_INPUT_<NAME>, NEO_STEP_<ID>_<OUTPUT>)',
        );
      }
      checkStepNarrows(data, step, at, err);
      checkStepCwd(step, at, err);
      checkCommandRules(step.allowCommands, at('allowCommands'), err);
      out.push(...checkProtect(source, step.protect, at('protect')));
      if (step.loop !== undefined && step.loop.until === undefined && step.loop.untilRun === undefined) {
        err(
          'DEF_LOOP_CONDITION',
          `step \`${step.id}\` loops without a condition`,
          at('loop'),
          'add `until:` (an expression) or `untilRun:` (a command)',
        );
      }

      const roots = [
        'inputs',
        'steps',
        'env',
        'run',
        ...(step.foreach ? ['item'] : []),
        ...(step.loop ? ['loop'] : []),
      ];
      const scope: ExpressionScope = {
        roots,
        inputs: inputNames,
        allSteps: allIds,
        reachableSteps: list === 'finally' ? steps.map((s) => s.id) : [...(reach.get(step.id) ?? [])],
      };
      for (const [segments, text, bare] of expressionFields(step)) {
        out.push(...checkExpressionField(source, [...at(), ...segments], text, scope, bare));
      }
    });
  }
  for (const segments of unevaluatedExpressions(data)) {
    err(
      'DEF_EXPR_NOT_EVALUATED',
      `\`\${{ }}\` in \`${pointerToFieldPath(toPointer(segments))}\` is never evaluated: neo would use the text as written`,
      segments,
      "write the value itself; `${{ }}` is evaluated only in brief, script, if, loop.until, foreach.items, approval.prompt, env values (the flow's and a step's) and a sub-flow step's inputs",
    );
  }
  for (const cycle of findCycles(steps)) {
    if (cycle.length === 1) continue;
    const index = steps.findIndex((s) => s.id === cycle[0]);
    err(
      'DEF_NEEDS_CYCLE',
      `\`needs\` form a cycle: ${[...cycle, cycle[0]].join(' → ')}`,
      ['steps', index, 'needs'],
      'remove one of these needs so the steps can be ordered',
    );
  }
  return out;
}

type Err = (code: string, message: string, segments: Array<string | number>, hint?: string) => void;

/**
 * A step may only narrow the flow's ceilings (posture, rounds, effort); asking for more is an error, not a clamp.
 * Its postures meet the one ceiling rule (engine/posture `underCeiling`); the code stays DEF_STEP_WIDENS, as for
 * rounds and effort: a definition error located at the field, which `neo validate` reports before anything runs.
 */
function checkStepNarrows(
  flow: Flow,
  step: Step,
  at: (...rest: Array<string | number>) => Array<string | number>,
  err: Err,
): void {
  const defaults = flow.defaults ?? {};
  const flowCeiling: Ceiling = {
    posture: defaults.maxPosture ?? DEFAULT_MAX_POSTURE,
    name: defaults.maxPosture === undefined ? 'the default ceiling' : "the flow's ceiling",
    hint: 'a step may only narrow the flow: raise `defaults.maxPosture` if the flow needs it',
  };
  const max = underCeiling('maxPosture', step.maxPosture, flowCeiling);
  if (!max.ok) err('DEF_STEP_WIDENS', `step \`${step.id}\`: ${max.message}`, at('maxPosture'), max.hint);
  const stepCeiling = max.ok ? max.posture : flowCeiling.posture;
  const start = underCeiling('posture', step.posture, {
    posture: stepCeiling,
    name: 'its ceiling',
    hint: 'lower `posture`, or raise the ceiling where it is set',
  });
  if (!start.ok) err('DEF_STEP_WIDENS', `step \`${step.id}\`: ${start.message}`, at('posture'), start.hint);
  if (step.maxRounds !== undefined && defaults.maxRounds !== undefined && step.maxRounds > defaults.maxRounds) {
    err(
      'DEF_STEP_WIDENS',
      `step \`${step.id}\` asks maxRounds ${step.maxRounds}, above the flow's ${defaults.maxRounds}`,
      at('maxRounds'),
      'a step may only narrow `defaults.maxRounds`',
    );
  }
  if (step.effort !== undefined && defaults.effort !== undefined && !effortWithin(step.effort, defaults.effort)) {
    err(
      'DEF_STEP_WIDENS',
      `step \`${step.id}\` asks effort ${step.effort}, above the flow's ${defaults.effort}`,
      at('effort'),
      'a step may only narrow `defaults.effort`',
    );
  }
}

/**
 * A step's `cwd` names a folder inside the workspace: relative, not climbing out with `..`, not
 * into git's metadata. Checked here as written; the run checks it again with symlinks followed.
 */
function checkStepCwd(step: Step, at: (...rest: Array<string | number>) => Array<string | number>, err: Err): void {
  const cwd = step.cwd;
  if (cwd === undefined || cwd.includes('${{')) return;
  const hint = 'give cwd as a folder relative to the workspace, e.g. `cwd: packages/core`';
  if (cwd.startsWith('/')) {
    err(
      'DEF_CWD_OUTSIDE',
      `step \`${step.id}\` has an absolute cwd \`${cwd}\`: a step works inside the run's workspace`,
      at('cwd'),
      hint,
    );
    return;
  }
  const inside = relativeInside('/workspace', cwd);
  if (inside === undefined)
    err('DEF_CWD_OUTSIDE', `step \`${step.id}\` has cwd \`${cwd}\`, which leaves the workspace`, at('cwd'), hint);
  else if (isGitPath(inside))
    err(
      'DEF_CWD_OUTSIDE',
      `step \`${step.id}\` has cwd \`${cwd}\`, inside git's metadata (.git)`,
      at('cwd'),
      'a step never works inside .git: git runs the commands its config names',
    );
}

/** Each allowCommands rule must be a command a rule can match (no substitution, newline, comment). */
function checkCommandRules(rules: string | string[] | undefined, segments: Array<string | number>, err: Err): void {
  if (rules === undefined) return;
  const list = Array.isArray(rules)
    ? rules.map((rule, i) => [rule, [...segments, i]] as const)
    : [[rules, segments] as const];
  for (const [text, at] of list)
    for (const rule of Array.isArray(rules) ? [text] : text.split(',')) {
      const problem = commandRuleProblem(rule);
      if (problem !== undefined && rule.trim() !== '' && !rule.includes('${{'))
        err(
          'DEF_COMMAND_RULE',
          `allowCommands rule \`${rule.trim()}\` can never match: ${problem}`,
          [...at],
          'a rule names one command as words (`*` globbing within a word, a last word ending in `*` taking any further words); put anything more in a script and allow that',
        );
    }
}

function checkReference(
  set: DefinitionSet,
  kind: 'persona' | 'backend' | 'policy',
  id: string | undefined,
  segments: Array<string | number>,
  err: Err,
): void {
  if (id === undefined || set.has(kind, id)) return;
  const suggestion = didYouMean(id, set.ids(kind));
  err(
    `DEF_UNKNOWN_${kind.toUpperCase()}`,
    `unknown ${kind} \`${id}\``,
    segments,
    suggestion ? `did you mean \`${suggestion}\`?` : `known ${kind}s: ${set.ids(kind).join(', ') || '(none)'}`,
  );
}
