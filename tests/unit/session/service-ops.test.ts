import { describe, expect, it } from 'vitest';
import { createSessionService, type MetricsSink } from '../../../engine/session/index.js';
import { backendData, testDefinitions } from '../../fixtures/session/definitions.js';
import { FakeTransport } from '../../fixtures/session/fake-transport.js';
import { tempDir } from '../../helpers/temp.js';
import { harness, OWNER } from './harness.js';

const ROUTING = {
  description: 'test routing',
  taskClasses: {
    bugfix: {
      description: 'small fix',
      subscription: { modelClass: 'standard', effort: 'medium' },
      metered: { modelClass: 'cheap', effort: 'low', note: 'keep it cheap' },
    },
  },
};

describe('list-backends', () => {
  it('lists every descriptor with a live probe; a throwing probe degrades; no adapter is unsupported', async () => {
    const h = await harness({
      backends: {
        fake: backendData(),
        broken: backendData({ costProfile: 'subscription' }),
        orphan: backendData({ protocol: 'acp', modelSelection: 'none', effortSupport: { levels: [] } }),
      },
      routing: ROUTING,
      trackRecord: (id) => (id === 'fake' ? ['fake: 3 runs, 67% success'] : undefined),
    });
    h.transports.get('broken')!.probe = async () => {
      throw new Error('probe exploded');
    };
    h.transports.delete('orphan');
    const { backends } = await h.service.execute({ op: 'list-backends' }, OWNER);
    expect(backends.map((b) => [b.id, b.availability.status, b.availability.available])).toEqual([
      ['broken', 'probe-failed', false],
      ['fake', 'ok', true],
      ['orphan', 'unsupported', false],
    ]);
    expect(backends[0]!.availability.detail).toBe('probe exploded');
    const fake = backends[1]!;
    expect(fake.trackRecord).toEqual(['fake: 3 runs, 67% success']);
    expect(backends[0]!.trackRecord).toBeUndefined();
    expect(fake.descriptor).toMatchObject({
      id: 'fake',
      postures: ['plan', 'default', 'acceptEdits', 'full'],
      clarifySupport: true,
      editToolNames: ['write', 'edit'],
    });
    expect(fake.descriptor).not.toHaveProperty('command');
    expect(fake.routingGuidance).toEqual([
      'effort: accepts low, medium, high (via --effort)',
      'cost: metered — a dollar play; prefer the cheapest class that passes the check',
      'model classes: cheap → fake-mini, standard → backend default, frontier → fake-max (switchable per turn with guide)',
      'bugfix: cheap (fake-mini) @ low — keep it cheap',
    ]);
    expect(backends[0]!.routingGuidance!.at(-1)).toBe('bugfix: standard (backend default) @ medium');
    expect(backends[2]!.routingGuidance).toEqual([
      'effort: cannot be set on this backend; omit effort',
      'cost: metered — a dollar play; prefer the cheapest class that passes the check',
      'model: the backend picks its own; omit agentModel',
      'bugfix: backend model — keep it cheap',
    ]);
  });
});

describe('op metrics', () => {
  it('counts code_session_ops_total by op and outcome (ok | rejected | error)', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    await expect(h.service.execute({ op: 'set-posture', sessionId, posture: 'full' }, OWNER)).rejects.toMatchObject({
      code: 'POSTURE_CEILING_EXCEEDED',
    });
    await expect(h.service.execute({ op: 'nope' }, OWNER)).rejects.toMatchObject({ code: 'SESSION_UNKNOWN_OP' });
    h.transport.failStart = new Error('binary vanished');
    await expect(h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER)).rejects.toMatchObject({
      code: 'SESSION_START_FAILED',
      message: 'backend `fake` did not start: binary vanished',
    });
    expect(h.metrics.count('code_session_ops_total', { op: 'start', outcome: 'ok' })).toBe(1);
    expect(h.metrics.count('code_session_ops_total', { op: 'set-posture', outcome: 'rejected' })).toBe(1);
    expect(h.metrics.count('code_session_ops_total', { op: 'invalid', outcome: 'rejected' })).toBe(1);
    expect(h.metrics.count('code_session_ops_total', { op: 'start', outcome: 'error' })).toBe(1);
    expect(h.metrics.count('code_session_started_total', { backend: 'fake' })).toBe(1);
    expect(h.metrics.count('code_session_posture_changes_total', { outcome: 'rejected' })).toBe(1);
  });

  it('a throwing metrics sink never breaks an op', async () => {
    const home = await tempDir();
    const transport = new FakeTransport();
    const sink: MetricsSink = {
      increment() {
        throw new Error('sink down');
      },
      observe() {
        throw new Error('sink down');
      },
    };
    const service = createSessionService({
      home,
      definitions: testDefinitions({ fake: backendData() }),
      transports: async () => transport,
      metrics: sink,
      defaultCwd: home,
    });
    const { sessionId } = await service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    expect(await service.execute({ op: 'stop', sessionId }, OWNER)).toEqual({ ok: true, alreadyStopped: false });
    await service.close();
  });
});

describe('steering ops', () => {
  it('set-posture within the ceiling reaches the agent, the record and the event log', async () => {
    const h = await harness();
    const { sessionId } = await h.service.execute(
      { op: 'start', brief: 'b', backend: 'fake', maxPosture: 'acceptEdits', initialPosture: 'plan' },
      OWNER,
    );
    expect(await h.service.execute({ op: 'set-posture', sessionId, posture: 'acceptEdits' }, OWNER)).toEqual({
      ok: true,
      posture: 'acceptEdits',
    });
    expect(h.transport.last.postures).toEqual(['acceptEdits']);
    expect(await h.service.store.get(sessionId)).toMatchObject({ posture: 'acceptEdits', maxPosture: 'acceptEdits' });
    expect(
      (await h.service.store.readEvents(sessionId))!.map((e) => e.event).filter((e) => e.type === 'posture'),
    ).toEqual([{ type: 'posture', mode: 'acceptEdits' }]);
    await expect(h.service.execute({ op: 'set-posture', sessionId, posture: 'full' }, OWNER)).rejects.toMatchObject({
      code: 'POSTURE_CEILING_EXCEEDED',
    });
    expect(h.transport.last.postures).toEqual(['acceptEdits']);
  });

  it('rejects set-posture and interrupt on backends whose liveControl forbids them', async () => {
    const h = await harness({
      backends: { rigid: backendData({ liveControl: { setPosture: false, interrupt: false } }) },
    });
    const { sessionId } = await h.service.execute(
      { op: 'start', brief: 'b', backend: 'rigid', initialPosture: 'plan' },
      OWNER,
    );
    await expect(h.service.execute({ op: 'set-posture', sessionId, posture: 'default' }, OWNER)).rejects.toMatchObject({
      code: 'SESSION_POSTURE_LOCKED',
    });
    await expect(h.service.execute({ op: 'interrupt', sessionId }, OWNER)).rejects.toMatchObject({
      code: 'SESSION_INTERRUPT_UNSUPPORTED',
    });
  });

  it('guide switches model/effort for the next turn only on per-turn backends', async () => {
    const h = await harness({
      backends: { fake: backendData(), fixed: backendData({ modelSelection: 'per-session' }) },
    });
    const a = await h.service.execute({ op: 'start', brief: 'b', backend: 'fake' }, OWNER);
    h.transports.get('fake')!.last.emit({ type: 'turn_complete' });
    await h.service.execute({ op: 'read-turn', sessionId: a.sessionId }, OWNER);
    await h.service.execute(
      { op: 'guide', sessionId: a.sessionId, text: 'harder', agentModel: 'frontier', effort: 'high' },
      OWNER,
    );
    expect(h.transports.get('fake')!.last.guidance).toEqual([
      { text: 'harder', switchTo: { model: 'fake-max', effort: 'high' } },
    ]);
    const b = await h.service.execute({ op: 'start', brief: 'b', backend: 'fixed' }, OWNER);
    await expect(
      h.service.execute({ op: 'guide', sessionId: b.sessionId, text: 'x', agentModel: 'cheap' }, OWNER),
    ).rejects.toMatchObject({ code: 'SESSION_MODEL_SWITCH_UNSUPPORTED' });
    expect(h.transports.get('fixed')!.last.guidance).toEqual([]);
  });
});

describe('start', () => {
  it('passes the resolved options to the transport and records the concrete model', async () => {
    const h = await harness();
    h.service.setScopeConstraints('persona', { maxPosture: 'default', allowedTools: ['Read', 'Edit'], maxRounds: 4 });
    const started = await h.service
      .execute(
        {
          op: 'start',
          brief: 'b',
          agentModel: 'cheap',
          effort: 'low',
          allowedTools: ['Edit', 'Bash'],
          taskTags: ['bugfix'],
          appendSystemPrompt: 'be brief',
          backendOptions: { script: '/x.yaml' },
        },
        { scope: 'persona' },
      )
      .catch((e) => e);
    // No backend given and no pin: the default (claude-code) does not exist in this set.
    expect(started).toMatchObject({ code: 'SESSION_UNKNOWN_BACKEND' });
    const ok = await h.service.execute(
      {
        op: 'start',
        brief: 'b',
        backend: 'fake',
        agentModel: 'cheap',
        effort: 'low',
        allowedTools: ['Edit', 'Bash'],
        taskTags: ['bugfix'],
        appendSystemPrompt: 'be brief',
        backendOptions: { script: '/x.yaml' },
      },
      { scope: 'persona' },
    );
    expect(ok).toMatchObject({ backend: 'fake', posture: 'default', maxPosture: 'default', maxRounds: 4 });
    expect(h.transport.last.options).toMatchObject({
      model: 'fake-mini',
      effort: 'low',
      allowedTools: ['Edit'],
      appendSystemPrompt: 'be brief',
      options: { script: '/x.yaml' },
      posture: 'default',
    });
    expect(h.transport.last.options.sessionDir).toBe(h.service.store.sessionDir(ok.sessionId));
    expect(await h.service.store.get(ok.sessionId)).toMatchObject({
      model: 'fake-mini',
      effort: 'low',
      taskTags: ['bugfix'],
      maxRounds: 4,
    });
  });

  it('rejects a cwd that is not a directory, naming the field', async () => {
    const h = await harness();
    await expect(
      h.service.execute({ op: 'start', brief: 'b', backend: 'fake', cwd: '/definitely/not/here' }, OWNER),
    ).rejects.toMatchObject({ code: 'SESSION_BAD_INPUT', message: 'cwd: not a directory: /definitely/not/here' });
    expect(h.transport.agents).toHaveLength(0);
  });

  it('uses config defaults for backend and rounds', async () => {
    const h = await harness({ config: { defaults: { backend: 'fake', maxRounds: 9, maxPosture: 'default' } } });
    expect(await h.service.execute({ op: 'start', brief: 'b' }, OWNER)).toMatchObject({
      backend: 'fake',
      maxRounds: 9,
      maxPosture: 'default',
    });
  });
});
