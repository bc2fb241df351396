/**
 * The persona side of the flow engine's agent-step driver: a step naming a driver persona is
 * driven by that persona (its rules, constraints, sweep and outcome records); any other step goes
 * to the flow's built-in rules driver.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, test } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { startRun } from '../../../engine/flow/index.js';
import { RulesDriver } from '../../../engine/flow/agent/rules-driver.js';
import { readOutcomes } from '../../../engine/learning/index.js';
import { PersonaStepDriver } from '../../../engine/persona/index.js';
import { CHECK_JS, fixerPersona, SCENARIO_SCRIPT } from '../../fixtures/persona/scenario.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

async function project(step: Record<string, unknown>) {
  const dir = await tempDir('neo-persona-flow-');
  const home = await tempDir('neo-persona-flow-home-');
  await writeTree(home, { 'agents/fixer.md': fixerPersona() });
  await writeTree(dir, {
    'check.js': CHECK_JS,
    'src/value.txt': 'start\n',
    'scenario.yaml': stringify(SCENARIO_SCRIPT),
    'plan.yaml': stringify({
      name: 'persona-step',
      defaults: { backend: 'script', maxPosture: 'acceptEdits', maxRounds: 4 },
      steps: [{ id: 'fix', brief: 'Make `node check.js` pass.', script: 'scenario.yaml', ...step }],
    }),
  });
  const { set } = await loadDefinitions({ cwd: dir, home });
  const fallback = new RulesDriver();
  let fellBack = 0;
  const driver = new PersonaStepDriver({
    home,
    definitions: () => set,
    fallback: { drive: (task, ctx) => (fellBack++, fallback.drive(task as never, ctx as never)) },
  });
  const run = () => startRun({ home, cwd: dir, planFile: 'plan.yaml', isolation: 'copy', driver: driver as never });
  return { dir, home, run, fellBack: () => fellBack };
}

describe('a flow step naming a driver persona', () => {
  test("is driven by the persona, behind the step's verify gate, and recorded", async () => {
    const p = await project({ persona: 'fixer', verify: { run: 'node check.js', attempts: 3 } });
    const outcome = await p.run();
    expect(outcome.status).toBe('succeeded');
    expect(p.fellBack()).toBe(0);
    const step = outcome.state.steps.fix!;
    expect(step.verdict).toBe('success');
    expect(step.outputs).toMatchObject({
      verdict: 'success',
      persona: 'fixer',
      backend: 'script',
      model: 'script-model-1',
      rounds: 2,
      costUsd: 0.03,
      gate: { command: 'node check.js', passed: true },
      diff: { files: [{ path: 'src/value.txt', status: 'M' }], summary: '1 file changed' },
    });
    expect(outcome.state.ledger).toMatchObject({ turns: 2, costUsd: 0.03 });
    // The work happened in the run's workspace, not the project.
    expect(await readFile(join(outcome.record.workspace!.path, 'src/value.txt'), 'utf8')).toBe('fixed\n');
    expect(await readFile(join(p.dir, 'src/value.txt'), 'utf8')).toBe('start\n');
    const records = await readOutcomes(p.home);
    expect(records).toEqual([
      expect.objectContaining({
        persona: 'fixer',
        scope: `persona:${outcome.runId}:fix#1`,
        outcome: 'success',
        rounds: 2,
        costUsd: 0.03,
      }),
    ]);
  });

  test("any other step goes to the flow's own rules driver", async () => {
    const p = await project({ verify: { run: 'node check.js', attempts: 3 }, allowCommands: ['node check.js'] });
    const outcome = await p.run();
    expect(p.fellBack()).toBe(1);
    expect(outcome.state.steps.fix!.outputs).not.toHaveProperty('persona');
    // The flow's own driver records the step's outcome (its gate's verdict), with no persona.
    const records = await readOutcomes(p.home);
    const step = outcome.state.steps.fix!;
    expect(records.map((r) => [r.sessionId, r.outcome, r.outcomeSource, r.persona])).toEqual([
      [step.outputs!.sessionId, step.verdict, 'driver', undefined],
    ]);
  });
});
