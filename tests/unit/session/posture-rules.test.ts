import { describe, expect, it } from 'vitest';
import type { Backend } from '../../../engine/definitions/index.js';
import { resolveGuideSwitch } from '../../../engine/routing/index.js';
import { checkSetPosture, resolveStart, type BackendCatalog, type StartInput } from '../../../engine/session/index.js';
import { backendData } from '../../fixtures/session/definitions.js';

const BACKENDS: Record<string, Backend> = {
  fake: backendData(),
  'no-tools': backendData({ honorsAllowedTools: false, modelSelection: 'per-session' }),
  'no-full': backendData({
    postureMap: { plan: { mode: 'plan' }, default: { mode: 'ask' }, acceptEdits: { mode: 'edits' } },
  }),
  'picks-own': backendData({ modelSelection: 'none', effortSupport: { levels: [] } }),
  'claude-code': backendData(),
};
const catalog: BackendCatalog = { ids: () => Object.keys(BACKENDS).sort(), get: (id) => BACKENDS[id] };
const start = (extra: Partial<StartInput> = {}): StartInput => ({ op: 'start', brief: 'b', backend: 'fake', ...extra });

describe('start rules (seed 004 §3)', () => {
  it('fixes the ceiling at start: default acceptEdits, the posture defaults to the ceiling', () => {
    expect(resolveStart(start(), catalog, undefined)).toMatchObject({
      backendId: 'fake',
      maxPosture: 'acceptEdits',
      posture: 'acceptEdits',
      maxRounds: 20,
    });
    expect(resolveStart(start({ maxPosture: 'full', initialPosture: 'plan' }), catalog, undefined)).toMatchObject({
      maxPosture: 'full',
      posture: 'plan',
    });
  });

  it('rejects an initial posture above the ceiling', () => {
    expect(() => resolveStart(start({ maxPosture: 'default', initialPosture: 'full' }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'POSTURE_CEILING_EXCEEDED' }),
    );
  });

  it('scope maxPosture: an explicit request above it is rejected, an omitted one clamped', () => {
    expect(() => resolveStart(start({ maxPosture: 'full' }), catalog, { maxPosture: 'default' })).toThrow(
      expect.objectContaining({ code: 'POSTURE_CEILING_EXCEEDED' }),
    );
    expect(resolveStart(start(), catalog, { maxPosture: 'default' })).toMatchObject({
      maxPosture: 'default',
      posture: 'default',
    });
    expect(resolveStart(start({ maxPosture: 'plan' }), catalog, { maxPosture: 'default' })).toMatchObject({
      maxPosture: 'plan',
    });
    expect(resolveStart(start({ maxPosture: 'default' }), catalog, { maxPosture: 'default' })).toMatchObject({
      maxPosture: 'default',
    });
  });

  it('scope backend pin: a different explicit backend is rejected, an omitted one resolves to the pin', () => {
    expect(() => resolveStart(start({ backend: 'fake' }), catalog, { backend: 'no-full' })).toThrow(
      expect.objectContaining({ code: 'SESSION_BACKEND_PINNED' }),
    );
    const { backend: _omit, ...noBackend } = start();
    expect(resolveStart(noBackend, catalog, { backend: 'no-full' }).backendId).toBe('no-full');
    expect(resolveStart(start({ backend: 'no-full' }), catalog, { backend: 'no-full' }).backendId).toBe('no-full');
  });

  it('backend: omitted with no pin → config default, else claude-code; unknown → did-you-mean', () => {
    const { backend: _omit, ...noBackend } = start();
    expect(resolveStart(noBackend, catalog, undefined).backendId).toBe('claude-code');
    expect(resolveStart(noBackend, catalog, undefined, { backend: 'no-tools' }).backendId).toBe('no-tools');
    expect(() => resolveStart(start({ backend: 'fak' }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'SESSION_UNKNOWN_BACKEND', hint: 'did you mean `fake`?' }),
    );
  });

  it('maxRounds is clamped toward the scope limit, never rejected', () => {
    expect(resolveStart(start({ maxRounds: 50 }), catalog, { maxRounds: 5 }).maxRounds).toBe(5);
    expect(resolveStart(start({ maxRounds: 3 }), catalog, { maxRounds: 5 }).maxRounds).toBe(3);
    expect(resolveStart(start(), catalog, { maxRounds: 5 }).maxRounds).toBe(5);
    expect(resolveStart(start(), catalog, undefined, { maxRounds: 7 }).maxRounds).toBe(7);
  });

  it('allowedTools: omitted → the constraint list, explicit → intersected, empty intersection → rejected', () => {
    expect(resolveStart(start(), catalog, { allowedTools: ['Read', 'Grep'] }).allowedTools).toEqual(['Read', 'Grep']);
    expect(
      resolveStart(start({ allowedTools: ['Read', 'Bash', 'Grep'] }), catalog, { allowedTools: ['Read', 'Grep'] })
        .allowedTools,
    ).toEqual(['Read', 'Grep']);
    expect(() => resolveStart(start({ allowedTools: ['Bash'] }), catalog, { allowedTools: ['Read'] })).toThrow(
      expect.objectContaining({ code: 'SESSION_TOOLS_EMPTY' }),
    );
    expect(resolveStart(start({ allowedTools: ['Bash'] }), catalog, undefined).allowedTools).toEqual(['Bash']);
    expect(resolveStart(start(), catalog, undefined).allowedTools).toBeUndefined();
  });

  it('rejects an explicit allowedTools for a backend that does not honour it', () => {
    expect(() => resolveStart(start({ backend: 'no-tools', allowedTools: ['Read'] }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'SESSION_TOOLS_NOT_HONORED' }),
    );
  });

  it('fails closed on a posture the backend postureMap cannot express', () => {
    expect(() => resolveStart(start({ backend: 'no-full', maxPosture: 'full' }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'POSTURE_UNSUPPORTED', hint: 'it supports: plan, default, acceptEdits' }),
    );
    expect(
      resolveStart(start({ backend: 'no-full', maxPosture: 'full', initialPosture: 'default' }), catalog, undefined)
        .posture,
    ).toBe('default');
  });

  it('resolves model class sentinels through modelClassMap; the concrete id reaches the transport', () => {
    expect(resolveStart(start({ agentModel: 'cheap' }), catalog, undefined).model).toBe('fake-mini');
    expect(resolveStart(start({ agentModel: 'standard' }), catalog, undefined).model).toBeUndefined();
    expect(resolveStart(start({ agentModel: 'my-model-7' }), catalog, undefined).model).toBe('my-model-7');
    expect(() => resolveStart(start({ backend: 'picks-own', agentModel: 'my-model-7' }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'SESSION_MODEL_UNSUPPORTED' }),
    );
    expect(
      resolveStart(start({ backend: 'picks-own', agentModel: 'frontier' }), catalog, undefined).model,
    ).toBeUndefined();
  });

  it('validates effort against effortSupport, loudly', () => {
    expect(resolveStart(start({ effort: 'high' }), catalog, undefined).effort).toBe('high');
    expect(() => resolveStart(start({ effort: 'max' }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'SESSION_EFFORT_UNSUPPORTED', hint: 'it accepts: low, medium, high' }),
    );
    expect(() => resolveStart(start({ backend: 'picks-own', effort: 'low' }), catalog, undefined)).toThrow(
      expect.objectContaining({ code: 'SESSION_EFFORT_UNSUPPORTED' }),
    );
    // A config default the backend cannot take is dropped, not an error.
    expect(resolveStart(start({ backend: 'picks-own' }), catalog, undefined, { effort: 'low' }).effort).toBeUndefined();
  });

  it('leaves a scope without constraints unaffected', () => {
    expect(resolveStart(start({ maxPosture: 'full', maxRounds: 99, allowedTools: ['X'] }), catalog, {})).toMatchObject({
      maxPosture: 'full',
      maxRounds: 99,
      allowedTools: ['X'],
    });
  });
});

describe('set-posture and guide rules', () => {
  it('rejects set-posture above the session ceiling (never clamps) and a posture outside the postureMap', () => {
    expect(() => checkSetPosture('fake', BACKENDS.fake!, 'default', 'acceptEdits')).toThrow(
      expect.objectContaining({ code: 'POSTURE_CEILING_EXCEEDED' }),
    );
    expect(() => checkSetPosture('fake', BACKENDS.fake!, 'default', 'plan')).not.toThrow();
    expect(() => checkSetPosture('no-full', BACKENDS['no-full']!, 'full', 'full')).toThrow(
      expect.objectContaining({ code: 'POSTURE_UNSUPPORTED' }),
    );
  });

  it('accepts a model/effort switch only on modelSelection per-turn backends', () => {
    expect(resolveGuideSwitch('fake', BACKENDS.fake!, {})).toBeUndefined();
    expect(resolveGuideSwitch('fake', BACKENDS.fake!, { agentModel: 'frontier', effort: 'low' })).toEqual({
      model: 'fake-max',
      effort: 'low',
    });
    expect(() => resolveGuideSwitch('no-tools', BACKENDS['no-tools']!, { agentModel: 'cheap' })).toThrow(
      expect.objectContaining({ code: 'SESSION_MODEL_SWITCH_UNSUPPORTED' }),
    );
    expect(() => resolveGuideSwitch('fake', BACKENDS.fake!, { effort: 'max' })).toThrow(
      expect.objectContaining({ code: 'SESSION_EFFORT_UNSUPPORTED' }),
    );
  });
});
