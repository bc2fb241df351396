import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Flow } from '../../../engine/definitions/index.js';
import { compilePlan } from '../../../engine/flow/core/compile.js';
import type { PersonaInfo } from '../../../engine/flow/core/lookup.js';
import { compileYaml, testLookup } from './helpers.js';

const reviewer: PersonaInfo = {
  id: 'reviewer',
  driver: false,
  instructions: 'You review code.',
  model: 'frontier',
  taskTags: ['review'],
  layers: [
    { source: 'persona reviewer policy read-only', knobs: { maxPosture: 'plan', maxRounds: 4 } },
    {
      source: 'persona reviewer',
      knobs: { maxPosture: 'plan', initialPosture: 'plan', allowedTools: ['Read', 'Grep'] },
    },
  ],
};
const lookup = testLookup({ persona: (id) => (id === 'reviewer' ? reviewer : undefined) });

function problems(text: string, options = {}) {
  return compilePlan(parse(text) as Flow, '/project/plan.yaml', lookup, options).problems.map(
    (p) => `${p.code} ${p.step ?? '-'}: ${p.message}`,
  );
}

describe('compilePlan', () => {
  it('applies defaults and normalizes durations, gates, retries and approvals', () => {
    const plan = compileYaml(`
name: n
defaults: { backend: script, maxPosture: full, posture: default, maxRounds: 8, timeout: 2m, idleTimeout: 30s, budgets: { maxCostUsd: 1.5, maxDuration: 1h } }
steps:
  - { id: fix, brief: go, script: s/fix.yaml, verify: npm test, retry: { attempts: 2, backoff: 500ms } }
  - { id: ok, approval: { prompt: sure? }, needs: [fix] }
`);
    const fix = plan.steps[0]!;
    expect(fix).toMatchObject({
      kind: 'agent',
      timeoutMs: 120_000,
      idleTimeoutMs: 30_000,
      join: 'all_success',
      retry: { attempts: 2, backoffMs: 500, on: 'transient' },
    });
    expect(fix.agent).toMatchObject({
      backend: 'script',
      maxPosture: 'full',
      initialPosture: 'default',
      maxRounds: 8,
      script: '/project/s/fix.yaml',
      verify: { run: 'npm test', attempts: 1, flakeCheck: false, baseline: false },
      requireChange: true,
      editToolNames: ['write', 'edit'],
    });
    expect(plan.steps[1]!.approval!.decisions).toEqual([
      { id: 'approve', label: 'Approve', fail: false },
      { id: 'reject', label: 'Reject', fail: true },
    ]);
    expect(plan.steps[1]!.reach).toEqual(['fix']);
    expect(plan.budgets).toEqual({ maxCostUsd: 1.5, maxDurationMs: 3_600_000 });
    expect(plan.maxParallel).toBe(4);
  });

  it("narrows a persona's knobs, puts a non-driver persona's body in appendSystemPrompt, and reports tools the backend cannot enforce", () => {
    const plan = compileYaml(
      `
name: n
defaults: { backend: script, maxRounds: 6 }
steps:
  - { id: review, persona: reviewer, brief: look }
`,
      {},
      lookup,
    );
    expect(plan.steps[0]!.agent).toMatchObject({
      maxPosture: 'plan',
      initialPosture: 'plan',
      maxRounds: 4,
      model: 'frontier',
      appendSystemPrompt: 'You review code.',
      unenforcedTools: ['Read', 'Grep'],
      taskTags: ['review'],
      provenance: {
        maxPosture: 'persona reviewer',
        maxRounds: 'persona reviewer policy read-only',
        backend: 'flow defaults',
      },
    });
    expect(plan.steps[0]!.agent!.allowedTools).toBeUndefined();
    const enforced = compileYaml(
      'name: n\ndefaults: { backend: other }\nsteps: [ { id: r, persona: reviewer, brief: look } ]',
      {},
      lookup,
    );
    expect(enforced.steps[0]!.agent!.allowedTools).toEqual(['Read', 'Grep']);
  });

  it('refuses a step that widens what a wider layer allows, rather than clamping it', () => {
    expect(
      problems(
        'name: n\ndefaults: { backend: script, maxPosture: default }\nsteps: [ { id: a, brief: b, maxPosture: full } ]',
      ),
    ).toEqual([
      'FLOW_STEP_WIDENS a: step `a` asks maxPosture full, above the default a wider layer (flow defaults) allows',
    ]);
    expect(
      problems(
        'name: n\ndefaults: { backend: script }\nsteps: [ { id: a, persona: reviewer, brief: b, maxRounds: 9 } ]',
      ),
    ).toEqual([
      'FLOW_STEP_WIDENS a: step `a` asks maxRounds 9, above the 4 a wider layer (persona reviewer policy read-only) allows',
    ]);
    expect(
      problems('name: n\ndefaults: { backend: script, effort: medium }\nsteps: [ { id: a, brief: b, effort: max } ]'),
    ).toEqual(["FLOW_STEP_WIDENS a: step `a` asks effort max, above the flow's medium"]);
    expect(problems('name: n\ndefaults: { backend: script }\nsteps: [ { id: a, brief: b, posture: full } ]')).toEqual([
      'FLOW_STEP_WIDENS a: step `a` asks maxPosture full, above the acceptEdits a wider layer (flow defaults) allows',
      'FLOW_STEP_WIDENS a: step `a`: posture `full` is above its ceiling `acceptEdits`',
    ]);
  });

  it('resolves the backend: --backend overrides every pin, a missing backend is refused only for a run', () => {
    expect(
      compileYaml('name: n\ndefaults: { backend: other }\nsteps: [ { id: a, brief: b, backend: other } ]', {
        backendOverride: 'script',
      }).steps[0]!.agent!.backend,
    ).toBe('script');
    expect(problems('name: n\nsteps: [ { id: a, brief: b } ]')).toEqual([]);
    expect(problems('name: n\nsteps: [ { id: a, brief: b } ]', { requireBackend: true })).toEqual([
      'FLOW_NO_BACKEND a: agent step `a` has no backend',
    ]);
    expect(problems('name: n\nsteps: [ { id: a, run: x } ]', { backendOverride: 'scrpit' })).toEqual([
      'FLOW_UNKNOWN_BACKEND -: --backend names unknown backend `scrpit`',
    ]);
    expect(
      problems('name: n\ndefaults: { backend: script }\nsteps: [ { id: a, brief: b, allowedTools: [Read] } ]'),
    ).toEqual([
      'FLOW_TOOLS_UNENFORCEABLE a: step `a` limits allowedTools but backend `script` cannot enforce a tool list',
    ]);
  });

  it('gives finally steps every main step as reach, and keeps allowCommands from defaults and step', () => {
    const plan = compileYaml(`
name: n
defaults: { backend: script, allowCommands: "npm test" }
steps:
  - { id: a, run: x }
  - { id: b, brief: go, allowCommands: [node *], needs: [a] }
finally:
  - { id: z, run: y }
`);
    expect(plan.steps.map((s) => [s.id, s.group, s.reach])).toEqual([
      ['a', 'main', []],
      ['b', 'main', ['a']],
      ['z', 'finally', ['a', 'b']],
    ]);
    expect(plan.steps[1]!.agent!.allowCommands).toEqual(['npm test', 'node *']);
  });
});
