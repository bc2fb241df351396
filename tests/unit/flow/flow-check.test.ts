import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

async function diagnose(plan: string): Promise<string[]> {
  const dir = await tempDir();
  await writeTree(dir, { 'plan.yaml': plan });
  const { diagnostics } = await loadDefinitions({
    cwd: dir,
    home: join(dir, 'home'),
    paths: [join(dir, 'plan.yaml')],
    noProject: true,
  });
  return diagnostics
    .filter((d) => d.span?.file === join(dir, 'plan.yaml'))
    .map((d) => `${d.span!.start.line}:${d.span!.start.column} ${d.code} ${d.message}`);
}

describe('flow checks added for flows', () => {
  it('reports a step that widens the flow at the field, not at run time', async () => {
    expect(
      await diagnose(
        'name: w\ndefaults: { maxPosture: default, maxRounds: 3, effort: low }\nsteps:\n  - id: a\n    brief: go\n    maxPosture: full\n    maxRounds: 9\n    effort: high\n',
      ),
    ).toEqual([
      "6:17 DEF_STEP_WIDENS step `a`: maxPosture `full` is above the flow's ceiling `default`",
      "7:16 DEF_STEP_WIDENS step `a` asks maxRounds 9, above the flow's 3",
      "8:13 DEF_STEP_WIDENS step `a` asks effort high, above the flow's low",
    ]);
  });

  it('forbids ${{ }} in loop.untilRun and checks expressions in script paths', async () => {
    expect(
      await diagnose(
        "name: l\nsteps:\n  - id: a\n    run: x\n    loop: { untilRun: 'test ${{ inputs.n }}', maxIterations: 2 }\n  - { id: b, brief: go, script: 'scripts/${{ itme }}.yaml' }\n",
      ),
    ).toEqual([
      '5:23 DEF_EXPR_IN_RUN `${{ }}` is not allowed in `loop.untilRun`: values are never spliced into a shell command',
      '6:46 DEF_EXPR_UNKNOWN_NAME in `steps[1].script`: unknown name `itme`',
    ]);
  });

  it('refuses a verify gate on a step that is not an agent step: it would never run', async () => {
    expect(
      await diagnose(
        "name: v\nsteps:\n  - { id: a, run: 'true', verify: 'false' }\n  - { id: b, brief: go, verify: npm test }\n",
      ),
    ).toEqual([
      "3:35 DEF_VERIFY_NOT_AGENT step `a` is a run step: `verify` gates an agent's turn and would never run here",
    ]);
  });

  it('refuses a cwd that leaves the workspace or enters .git, at the field', async () => {
    expect(
      await diagnose(
        [
          'name: c',
          'steps:',
          '  - { id: a, run: pwd, cwd: ../../.. }',
          '  - { id: b, brief: go, cwd: /etc }',
          '  - { id: c, run: pwd, cwd: sub/../../x }',
          '  - { id: d, brief: go, cwd: .git/hooks }',
          '  - { id: e, run: pwd, cwd: packages/core }',
          '  - { id: f, run: pwd, cwd: sub/.. }',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      '3:29 DEF_CWD_OUTSIDE step `a` has cwd `../../..`, which leaves the workspace',
      "4:30 DEF_CWD_OUTSIDE step `b` has an absolute cwd `/etc`: a step works inside the run's workspace",
      '5:29 DEF_CWD_OUTSIDE step `c` has cwd `sub/../../x`, which leaves the workspace',
      "6:30 DEF_CWD_OUTSIDE step `d` has cwd `.git/hooks`, inside git's metadata (.git)",
    ]);
  });

  it('refuses ${{ }} in a field that is never evaluated, and accepts it where it is', async () => {
    expect(
      await diagnose(
        [
          'name: e',
          'description: use ${{ inputs.x }} in a brief',
          'inputs: { x: { type: string, default: "${{ env.HOME }}" } }',
          'env: { A: "${{ inputs.x }}" }',
          'defaults: { model: "${{ inputs.x }}", allowCommands: ["echo ${{ inputs.x }}"] }',
          'steps:',
          '  - id: a',
          '    run: pwd',
          '    cwd: "${{ inputs.x }}"',
          '    env: { B: "${{ inputs.x }}" }',
          '  - id: b',
          '    name: "fix ${{ inputs.x }}"',
          '    brief: "go ${{ inputs.x }}"',
          '    needs: [a]',
          '    x-note: "${{ kept as data }}"',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      '3:39 DEF_EXPR_NOT_EVALUATED `${{ }}` in `inputs.x.default` is never evaluated: neo would use the text as written',
      '5:20 DEF_EXPR_NOT_EVALUATED `${{ }}` in `defaults.model` is never evaluated: neo would use the text as written',
      '5:55 DEF_EXPR_NOT_EVALUATED `${{ }}` in `defaults.allowCommands[0]` is never evaluated: neo would use the text as written',
      '9:10 DEF_EXPR_NOT_EVALUATED `${{ }}` in `steps[0].cwd` is never evaluated: neo would use the text as written',
      '12:11 DEF_EXPR_NOT_EVALUATED `${{ }}` in `steps[1].name` is never evaluated: neo would use the text as written',
    ]);
  });

  it('refuses an allowCommands rule that no command could match', async () => {
    expect(
      await diagnose(
        'name: r\ndefaults: { allowCommands: ["npm test", "echo $(date)"] }\nsteps:\n  - { id: a, brief: go, allowCommands: "node --test*, ls `pwd`" }\n',
      ),
    ).toEqual([
      '2:41 DEF_COMMAND_RULE allowCommands rule `echo $(date)` can never match: the rule holds a command substitution ($(…)), which no command may use',
      '4:40 DEF_COMMAND_RULE allowCommands rule `ls `pwd`` can never match: the rule holds a command substitution (backticks), which no command may use',
    ]);
  });
});
