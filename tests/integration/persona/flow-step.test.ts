/**
 * The flow engine's one agent-step driver: a step naming a driver persona is driven by that
 * persona (its rules, constraints, sweep and outcome records); any other step by the step's own
 * rules through the same persona machine.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { describe, expect, test } from 'vitest';
import { loadDefinitions } from '../../../engine/definitions/index.js';
import { startRun } from '../../../engine/flow/index.js';
import { readOutcomes } from '../../../engine/learning/index.js';
import { PersonaStepDriver } from '../../../engine/persona/index.js';
import { CHECK_JS, fixerPersona, SCENARIO_SCRIPT } from '../../fixtures/persona/scenario.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

async function project(step: Record<string, unknown>, script: object = SCENARIO_SCRIPT) {
  const dir = await tempDir('neo-persona-flow-');
  const home = await tempDir('neo-persona-flow-home-');
  await writeTree(home, { 'agents/fixer.md': fixerPersona() });
  await writeTree(dir, {
    'check.js': CHECK_JS,
    'src/value.txt': 'start\n',
    'scenario.yaml': stringify(script),
    'plan.yaml': stringify({
      name: 'persona-step',
      defaults: { backend: 'script', maxPosture: 'acceptEdits', maxRounds: 4 },
      steps: [{ id: 'fix', brief: 'Make `node check.js` pass.', script: 'scenario.yaml', ...step }],
    }),
  });
  const { set } = await loadDefinitions({ cwd: dir, home });
  const driver = new PersonaStepDriver({ home, definitions: () => set });
  const run = () => startRun({ home, cwd: dir, planFile: 'plan.yaml', isolation: 'copy', driver });
  return { dir, home, run };
}

describe('a flow step naming a driver persona', () => {
  test("is driven by the persona, behind the step's verify gate, and recorded", async () => {
    const p = await project({ persona: 'fixer', verify: { run: 'node check.js', attempts: 3 } });
    const outcome = await p.run();
    expect(outcome.status).toBe('succeeded');
    const step = outcome.state.steps.get('fix')!;
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

  test("a driver persona's success still meets the step's acceptance: an answer that breaks its outputSchema fails", async () => {
    const p = await project({
      persona: 'fixer',
      verify: { run: 'node check.js', attempts: 3 },
      outputSchema: { type: 'object', required: ['fixed'] },
    });
    const outcome = await p.run();
    const step = outcome.state.steps.get('fix')!;
    expect(outcome.status).toBe('failed');
    expect(step.error).toMatchObject({ code: 'FLOW_OUTPUT_SCHEMA' });
    expect(step.outputs).toMatchObject({ persona: 'fixer', gate: { passed: true } });
    // The session is stopped with the step's verdict, and that is what is learned.
    const records = await readOutcomes(p.home);
    expect(records.map((r) => [r.persona, r.outcome])).toEqual([['fixer', 'failed']]);
  });

  test("any other step is driven by the step's own rules (the flow-default persona)", async () => {
    // The second turn answers the flow's own gate guidance (no persona template here).
    const [first, second] = SCENARIO_SCRIPT.turns;
    const script = {
      ...SCENARIO_SCRIPT,
      turns: [first, { ...second, when: { guidanceContains: 'exited 1 (attempt 1 of 3)' } }],
    };
    const p = await project(
      { verify: { run: 'node check.js', attempts: 3 }, allowCommands: ['node check.js'] },
      script,
    );
    const outcome = await p.run();
    expect(outcome.state.steps.get('fix')!.error).toBeUndefined();
    expect(outcome.status).toBe('succeeded');
    expect(outcome.state.steps.get('fix')!.outputs).not.toHaveProperty('persona');
    // The flow's own driver records the step's outcome (its gate's verdict), with no persona.
    const records = await readOutcomes(p.home);
    const step = outcome.state.steps.get('fix')!;
    expect(records.map((r) => [r.sessionId, r.outcome, r.outcomeSource, r.persona])).toEqual([
      [step.outputs!.sessionId, step.verdict, 'driver', undefined],
    ]);
  });
});
