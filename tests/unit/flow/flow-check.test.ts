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
      "6:17 DEF_STEP_WIDENS step `a` asks maxPosture full, above the flow's ceiling default (defaults.maxPosture)",
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
});
