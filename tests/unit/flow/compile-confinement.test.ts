import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import type { Flow } from '../../../engine/definitions/index.js';
import { compilePlan } from '../../../engine/flow/core/compile.js';
import { describePlan } from '../../../engine/flow/core/describe.js';
import type { SandboxSetting } from '../../../engine/flow/core/plan.js';
import { compileYaml, testLookup } from './helpers.js';

const BWRAP_PARENT: { step: string; sandbox: SandboxSetting } = {
  step: 'sub',
  sandbox: { kind: 'bwrap', network: false, source: 'flow' },
};

function compile(text: string, parent?: { step: string; sandbox: SandboxSetting }) {
  return compilePlan(parse(text) as Flow, '/project/child.yaml', testLookup(), parent === undefined ? {} : { parent });
}

describe('what every command of a step runs with', () => {
  it('a run step and a gate get a 30m timeout and 1024 processes unless they say otherwise; secrets add up', () => {
    const plan = compileYaml(`
name: n
defaults: { backend: script, maxProcesses: 512 }
secrets: [NPM_TOKEN]
steps:
  - { id: build, run: make }
  - { id: quick, run: make, timeout: 5m, maxProcesses: 64, secrets: [GITHUB_TOKEN, NPM_TOKEN] }
  - { id: fix, brief: go, verify: npm test }
`);
    const [build, quick, fix] = plan.steps;
    expect(build).toMatchObject({ timeoutMs: 1_800_000, sandbox: { maxProcesses: 512, secrets: ['NPM_TOKEN'] } });
    expect(quick).toMatchObject({
      timeoutMs: 300_000,
      sandbox: { maxProcesses: 64, secrets: ['NPM_TOKEN', 'GITHUB_TOKEN'] },
    });
    expect(fix!.timeoutMs).toBeUndefined();
    expect(fix!.agent!.verify).toMatchObject({ timeoutMs: 1_800_000, sandbox: { maxProcesses: 512 } });
    const described = describePlan(plan).steps;
    expect(described[0]).toMatchObject({ timeout: '30m', maxProcesses: 512, secrets: ['NPM_TOKEN'] });
    expect(described[2]).toMatchObject({ gateTimeout: '30m', gateMaxProcesses: 512 });
  });
});

describe('a sub-flow under its parent step', () => {
  const child = `
name: child
steps:
  - { id: probe, run: 'true' }
  - { id: raised, run: 'true', network: true }
`;

  it("a step without its own sandbox runs in its parent step's bwrap, network as it says", () => {
    const { plan, problems } = compile(child, BWRAP_PARENT);
    expect(problems).toEqual([]);
    expect(plan.steps.map((s) => s.sandbox)).toMatchObject([
      { kind: 'bwrap', network: false, source: 'parent step sub, from flow' },
      { kind: 'bwrap', network: true, source: 'parent step sub, from flow' },
    ]);
    expect(compile(child).plan.steps[0]!.sandbox).toMatchObject({ kind: 'none', source: 'default' });
  });

  it('a sub-flow, step or gate that says `none` under a bwrap parent is refused, naming the parent', () => {
    const lowering = `
name: child
sandbox: none
defaults: { backend: script }
steps:
  - { id: escape, run: 'true' }
  - { id: fix, brief: go, sandbox: bwrap, verify: { run: npm test, sandbox: none } }
`;
    const codes = compile(lowering, BWRAP_PARENT).problems.map((p) => `${p.code} ${p.step}: ${p.message}`);
    expect(codes).toEqual([
      'FLOW_SANDBOX_REQUIRED escape: the command of step `escape` would run unsandboxed (`sandbox: none`, from flow), but its parent step `sub` runs in bwrap',
      'FLOW_SANDBOX_REQUIRED fix: the gate of step `fix` would run unsandboxed (`sandbox: none`, from step fix verify), but its parent step `sub` runs in bwrap',
    ]);
    expect(compile(lowering).problems).toEqual([]);
  });

  it("--dry-run shows the sub-flow's steps under the step that runs it", () => {
    const parent = compileYaml(`
name: parent
sandbox: bwrap
steps:
  - { id: sub, flow: child.yaml }
`);
    const { plan } = compile(child, { step: 'sub', sandbox: parent.steps[0]!.sandbox! });
    const described = describePlan(parent, { sub: { plan, children: {} } });
    expect(described.steps[0]!.subflow).toMatchObject({
      name: 'child',
      file: '/project/child.yaml',
      steps: [
        { id: 'probe', sandbox: 'bwrap (parent step sub, from flow)', timeout: '30m', maxProcesses: 1024 },
        { id: 'raised', sandbox: 'bwrap +net (parent step sub, from flow)' },
      ],
    });
  });
});
