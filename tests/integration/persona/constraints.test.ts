/**
 * Seed 004 §2–§3 through a persona's dispatch: constraints registered before the first start,
 * merged narrow-only and capped by the owner policy, enforced on every start of the scope, and
 * swept (sessions released, constraints cleared) when the persona settles.
 */
import { describe, expect, test } from 'vitest';
import type { Transport, StartSessionOptions } from '../../../engine/transports/index.js';
import { ScriptTransport } from '../../../engine/transports/script/index.js';
import {
  createSessionService,
  silentLog,
  type CodeSessionInput,
  type StartResult,
} from '../../../engine/session/index.js';
import { dispatchKnobs, loadPersona, runPersona } from '../../../engine/persona/index.js';
import { fixerPersona, writeScenario } from '../../fixtures/persona/scenario.js';
import { backendData, testDefinitions } from '../../fixtures/session/definitions.js';
import { personaHarness } from './harness.js';

const TOOLS_PERSONA = fixerPersona({ extra: 'allowedTools: [Read, Edit, Bash]' });

describe('constraints in', () => {
  test("the persona's knobs are registered as the scope's constraints before its first start", async () => {
    const h = await personaHarness({ agents: { fixer: fixerPersona() } });
    const script = await writeScenario(h.cwd, h.scripts);
    const calls: string[] = [];
    const port = {
      execute: <I extends CodeSessionInput>(input: I, caller: { scope: string }) => {
        calls.push(`execute ${input.op} as ${caller.scope}`);
        return h.service.execute(input, caller);
      },
      setScopeConstraints: (scope: string, c: object) => {
        calls.push(`constraints ${JSON.stringify(c)}`);
        h.service.setScopeConstraints(scope, c);
      },
      releaseAllOwnedBy: async (scope: string) => {
        calls.push('sweep');
        await h.service.releaseAllOwnedBy(scope);
      },
      onSessionEvent: h.service.onSessionEvent,
    };
    const { result } = await h.run('fixer', {
      sessions: port,
      scope: 'persona:fixer:test',
      backendOptions: { script },
    });
    expect(result.verdict.outcome).toBe('success');
    const constraints = '{"maxPosture":"acceptEdits","maxRounds":4,"ownOutcomes":true}';
    expect(calls.slice(0, 4)).toEqual([
      `constraints ${constraints}`,
      'execute list-backends as persona:fixer:test',
      `constraints ${constraints}`,
      'execute start as persona:fixer:test',
    ]);
    expect(calls.at(-1)).toBe('sweep');
  });

  test('policy → persona → caller, narrow-only, always capped by the owner policy', async () => {
    const h = await personaHarness({
      agents: { fixer: fixerPersona({ extra: 'policy: standard\nallowedTools: [Read, Edit, Bash]' }) },
      files: { 'policy.yaml': 'description: owner cap\nmaxPosture: default\nmaxRounds: 3\n' },
    });
    const persona = h.set.get('persona', 'fixer')!;
    // The caller asks for more rounds and a wider posture: ignored; fewer tools: intersected.
    const d = dispatchKnobs(h.set, persona, {
      source: 'step fix',
      knobs: { maxPosture: 'full', maxRounds: 10, allowedTools: ['Edit', 'Write'] },
    });
    expect(d.constraints).toEqual({ maxPosture: 'default', maxRounds: 3, allowedTools: ['Edit'] });
    expect(d.initialPosture).toBe('default');
    expect(d.provenance.maxPosture).toMatch(/^owner policy/);
    expect(d.provenance.allowedTools).toBe('step fix');
    // A caller pinning a backend the persona does not pin: the pin is added.
    expect(dispatchKnobs(h.set, persona, { source: 'delegate', knobs: { backend: 'neo' } }).constraints.backend).toBe(
      'neo',
    );
  });

  test("a backend pin that disagrees is a conflict, unless the caller's pin is an explicit override", async () => {
    const h = await personaHarness({ agents: { pinned: fixerPersona({ extra: 'backend: neo' }) }, files: {} });
    const persona = h.set.get('persona', 'pinned')!;
    expect(() => dispatchKnobs(h.set, persona, { source: 'step fix', knobs: { backend: 'script' } })).toThrow(
      /step fix pins backend `script` but persona pinned .* pins `neo`/,
    );
    expect(
      dispatchKnobs(h.set, persona, { source: '--backend', knobs: { backend: 'script' }, backendOverride: true })
        .constraints.backend,
    ).toBe('script');
  });

  test("the owner policy's pin cannot be replaced, even by --backend", async () => {
    const h = await personaHarness({
      agents: { fixer: fixerPersona() },
      files: { 'policy.yaml': 'description: owner cap\nbackend: neo\n' },
    });
    expect(() =>
      dispatchKnobs(h.set, h.set.get('persona', 'fixer')!, {
        source: '--backend',
        knobs: { backend: 'script' },
        backendOverride: true,
      }),
    ).toThrow(/owner policy pins `neo`/);
  });

  test('no ceiling written anywhere is the default ceiling, not none', async () => {
    const h = await personaHarness({ agents: { bare: '---\ndescription: no knobs\ndriver: true\n---\nbody\n' } });
    expect(dispatchKnobs(h.set, h.set.get('persona', 'bare')!).constraints).toEqual({ maxPosture: 'acceptEdits' });
  });
});

describe('every start of the scope meets the constraints (seed 004 §3)', () => {
  async function scoped() {
    const h = await personaHarness({
      agents: {
        fixer: TOOLS_PERSONA,
        pinned: fixerPersona({ extra: 'backend: script\nallowedTools: [Read, Edit, Bash]' }),
      },
    });
    const script = await writeScenario(h.cwd, h.scripts);
    const scope = { scope: 'persona:test' };
    const start = (input: Record<string, unknown>) =>
      h.service.execute(
        { op: 'start', brief: 'b', backendOptions: { script }, ...input },
        scope,
      ) as Promise<StartResult>;
    return { h, scope, start };
  }

  test('maxPosture: explicit above the ceiling is rejected, omitted is clamped', async () => {
    const { h, scope, start } = await scoped();
    h.service.setScopeConstraints(scope.scope, dispatchKnobs(h.set, h.set.get('persona', 'fixer')!).constraints);
    await expect(start({ backend: 'script', maxPosture: 'full' })).rejects.toMatchObject({
      code: 'POSTURE_CEILING_EXCEEDED',
    });
    h.service.setScopeConstraints(scope.scope, { maxPosture: 'default' });
    const clamped = await start({ backend: 'script' });
    expect(clamped.maxPosture).toBe('default');
    await expect(
      h.service.execute({ op: 'set-posture', sessionId: clamped.sessionId, posture: 'acceptEdits' }, scope),
    ).rejects.toMatchObject({ code: 'POSTURE_CEILING_EXCEEDED' });
  });

  test('backend: an explicit mismatch with the pin is rejected, an omitted one resolves to it', async () => {
    const { h, scope, start } = await scoped();
    h.service.setScopeConstraints(scope.scope, dispatchKnobs(h.set, h.set.get('persona', 'pinned')!).constraints);
    await expect(start({ backend: 'neo' })).rejects.toMatchObject({ code: 'SESSION_BACKEND_PINNED' });
    h.service.setScopeConstraints(scope.scope, { maxPosture: 'acceptEdits', backend: 'script' });
    expect((await start({})).backend).toBe('script');
  });

  test('maxRounds is clamped toward the constraint, never rejected', async () => {
    const { h, scope, start } = await scoped();
    h.service.setScopeConstraints(scope.scope, { maxPosture: 'acceptEdits', maxRounds: 4 });
    expect((await start({ backend: 'script', maxRounds: 50 })).maxRounds).toBe(4);
  });

  test('allowedTools: intersected, an empty intersection rejected, an explicit list to a backend that cannot enforce it rejected', async () => {
    const { h, scope, start } = await scoped();
    h.service.setScopeConstraints(scope.scope, { maxPosture: 'acceptEdits', allowedTools: ['Read', 'Edit'] });
    await expect(start({ backend: 'script', allowedTools: ['Read'] })).rejects.toMatchObject({
      code: 'SESSION_TOOLS_NOT_HONORED',
    });
    // A backend that enforces tool lists (a script-protocol descriptor that says so).
    const seen: StartSessionOptions[] = [];
    const set = testDefinitions({
      enforcing: backendData({ protocol: 'script', honorsAllowedTools: true, modelSelection: 'none' }),
    });
    const capture: Transport = {
      id: 'enforcing',
      probeAvailability: async () => ({ available: true, status: 'ok' }),
      start: async (o) => {
        seen.push(o);
        return new ScriptTransport().start(o);
      },
    };
    const service = createSessionService({
      home: h.home,
      definitions: set,
      log: silentLog,
      defaultCwd: h.cwd,
      transports: async (id) => (id === 'enforcing' ? capture : undefined),
    });
    try {
      const script = await writeScenario(h.cwd, h.scripts);
      const s = { scope: 'persona:tools' };
      service.setScopeConstraints(s.scope, { maxPosture: 'acceptEdits', allowedTools: ['Read', 'Edit'] });
      const go = (extra: Record<string, unknown>) =>
        service.execute({ op: 'start', brief: 'b', backend: 'enforcing', backendOptions: { script }, ...extra }, s);
      await go({ allowedTools: ['Edit', 'Write'] });
      expect(seen.at(-1)!.allowedTools).toEqual(['Edit']);
      await expect(go({ allowedTools: ['Write'] })).rejects.toMatchObject({ code: 'SESSION_TOOLS_EMPTY' });
      await go({});
      expect(seen.at(-1)!.allowedTools).toEqual(['Read', 'Edit']);
    } finally {
      await service.close();
    }
  });

  test('a persona limiting tools drives a backend that cannot enforce them without sending the list', async () => {
    const h = await personaHarness({ agents: { fixer: TOOLS_PERSONA } });
    const script = await writeScenario(h.cwd, h.scripts);
    const seen: StartSessionOptions[] = [];
    const service = createSessionService({
      home: h.home,
      definitions: h.set,
      log: silentLog,
      defaultCwd: h.cwd,
      // Only the script backend is drivable here, so the persona's choice is forced.
      transports: async (id) =>
        id === 'script'
          ? ({
              id: 'script',
              probeAvailability: async () => ({ available: true, status: 'ok' }),
              start: async (o) => {
                seen.push(o);
                return new ScriptTransport().start(o);
              },
            } satisfies Transport)
          : undefined,
    });
    try {
      const notices: string[] = [];
      const result = await runPersona({
        home: h.home,
        set: h.set,
        persona: loadPersona(h.set, 'fixer'),
        brief: 'fix it',
        cwd: h.cwd,
        sessions: service,
        backendOptions: { script },
        observe: (o) => {
          if (o.type === 'notice') notices.push(o.message);
        },
      });
      expect(result.verdict.outcome).toBe('success');
      expect(seen).toHaveLength(1);
      expect(seen[0]!.allowedTools).toBeUndefined();
      expect(notices).toContain(
        'backend script cannot enforce a tool list; allowedTools (Read, Edit, Bash) are not sent, the posture ceiling still applies',
      );
    } finally {
      await service.close();
    }
  });

  test('a scope with no constraints (the owner driving directly) is unaffected', async () => {
    const { h, start } = await scoped();
    const owner = (await h.service.execute(
      {
        op: 'start',
        brief: 'b',
        backend: 'script',
        maxPosture: 'full',
        backendOptions: { script: await writeScenario(h.cwd, h.scripts) },
      },
      { scope: 'owner' },
    )) as StartResult;
    expect(owner.maxPosture).toBe('full');
    void start;
  });
});
