import { describe, expect, it } from 'vitest';
import { parseOpInput } from '../../../engine/session/index.js';

describe('op input parsing', () => {
  it('parses every op and keeps absent optionals absent', () => {
    expect(
      parseOpInput({
        op: 'start',
        brief: 'do it',
        maxPosture: 'plan',
        taskTags: ['bugfix', 'bugfix'],
        backendOptions: { script: '/s.yaml' },
      }),
    ).toEqual({
      op: 'start',
      brief: 'do it',
      maxPosture: 'plan',
      taskTags: ['bugfix'],
      backendOptions: { script: '/s.yaml' },
    });
    expect(parseOpInput({ op: 'read-turn', sessionId: 'cs_x', includeDiff: true })).toEqual({
      op: 'read-turn',
      sessionId: 'cs_x',
      includeDiff: true,
    });
    expect(parseOpInput({ op: 'answer', sessionId: 'cs_x', clarificationId: 'q', allow: false, reason: 'no' })).toEqual(
      { op: 'answer', sessionId: 'cs_x', clarificationId: 'q', allow: false, reason: 'no' },
    );
    expect(parseOpInput({ op: 'guide', sessionId: 'cs_x', text: 't', effort: 'low' })).toEqual({
      op: 'guide',
      sessionId: 'cs_x',
      text: 't',
      effort: 'low',
    });
    expect(parseOpInput({ op: 'set-posture', sessionId: 'cs_x', posture: 'full' })).toEqual({
      op: 'set-posture',
      sessionId: 'cs_x',
      posture: 'full',
    });
    expect(parseOpInput({ op: 'interrupt', sessionId: 'cs_x' })).toEqual({ op: 'interrupt', sessionId: 'cs_x' });
    expect(parseOpInput({ op: 'stop', sessionId: 'cs_x', outcome: 'aborted' })).toEqual({
      op: 'stop',
      sessionId: 'cs_x',
      outcome: 'aborted',
    });
    expect(parseOpInput({ op: 'list-backends' })).toEqual({ op: 'list-backends' });
    expect(parseOpInput({ op: 'undo', sessionId: 'cs_1' })).toEqual({ op: 'undo', sessionId: 'cs_1' });
    expect(parseOpInput({ op: 'list-sessions', cwd: '/r', backend: 'neo', limit: 3 })).toEqual({
      op: 'list-sessions',
      cwd: '/r',
      backend: 'neo',
      limit: 3,
    });
  });

  it.each([
    [null, 'SESSION_BAD_INPUT', 'input: expected an object with an `op` field, got null', undefined],
    [{ op: 'read_turn', sessionId: 'x' }, 'SESSION_UNKNOWN_OP', 'unknown op `read_turn`', 'did you mean `read-turn`?'],
    [
      { op: 'launch' },
      'SESSION_UNKNOWN_OP',
      'unknown op `launch`',
      'ops are start, read-turn, answer, guide, set-posture, interrupt, stop, list-backends, undo, reset, checklist, list-sessions',
    ],
    [
      { op: 42 },
      'SESSION_BAD_INPUT',
      'op: expected one of start, read-turn, answer, guide, set-posture, interrupt, stop, list-backends, undo, reset, checklist, list-sessions, got number 42',
      undefined,
    ],
    [{ op: 'start' }, 'SESSION_BAD_INPUT', 'brief: required', undefined],
    [{ op: 'start', brief: '  ' }, 'SESSION_BAD_INPUT', 'brief: expected a non-empty string, got "  "', undefined],
    [
      { op: 'start', brief: 'x', maxPostur: 'plan' },
      'SESSION_BAD_INPUT',
      'maxPostur: unknown field for op `start`',
      'did you mean `maxPosture`?',
    ],
    [
      { op: 'start', brief: 'x', maxPosture: 'ful' },
      'SESSION_BAD_INPUT',
      'maxPosture: expected one of plan, default, acceptEdits, full, got "ful"',
      'did you mean `full`?',
    ],
    [
      { op: 'start', brief: 'x', maxRounds: 0 },
      'SESSION_BAD_INPUT',
      'maxRounds: expected a whole number ≥ 1, got number 0',
      undefined,
    ],
    [
      { op: 'start', brief: 'x', allowedTools: [] },
      'SESSION_BAD_INPUT',
      'allowedTools: an empty list allows nothing; omit the field to use the defaults',
      undefined,
    ],
    [
      { op: 'start', brief: 'x', allowedTools: 'Read' },
      'SESSION_BAD_INPUT',
      'allowedTools: expected a list of non-empty strings, got "Read"',
      undefined,
    ],
    [
      { op: 'answer', sessionId: 's', clarificationId: 'q' },
      'SESSION_BAD_INPUT',
      'allow: required: true to allow the tool call, false to deny it',
      undefined,
    ],
    [
      { op: 'answer', sessionId: 's', clarificationId: 'q', allow: 'yes' },
      'SESSION_BAD_INPUT',
      'allow: expected true or false, got "yes"',
      undefined,
    ],
    [
      { op: 'stop', sessionId: 's', outcome: 'win' },
      'SESSION_BAD_INPUT',
      'outcome: expected one of success, partial, failed, aborted, got "win"',
      undefined,
    ],
    [
      { op: 'list-backends', verbose: true },
      'SESSION_BAD_INPUT',
      'verbose: unknown field for op `list-backends`',
      '`list-backends` takes no fields',
    ],
    [
      { op: 'set-posture', sessionId: 's' },
      'SESSION_BAD_INPUT',
      'posture: required: one of plan, default, acceptEdits, full',
      undefined,
    ],
    [
      { op: 'start', brief: 'b', sandbox: { kind: 'bwrap', binds: [], hide: [], network: true, maxProcesses: 0 } },
      'SESSION_BAD_INPUT',
      'sandbox: `maxProcesses` must be a positive whole number',
      undefined,
    ],
    [
      {
        op: 'start',
        brief: 'b',
        sandbox: { kind: 'bwrap', binds: [], hide: [], network: true, env: { 'NOT A NAME': 'x' } },
      },
      'SESSION_BAD_INPUT',
      'sandbox: `env` must map variable names to strings',
      undefined,
    ],
  ])('rejects %j loudly', (input, code, message, hint) => {
    let caught: unknown;
    try {
      parseOpInput(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ code, message, hint });
  });
});
