import { describe, expect, it } from 'vitest';
import { planAux, planReply, type PlanContext } from '../../../engine/model-server/plan.js';
import type { RequestView } from '../../../engine/model-server/request-view.js';

function context(view: Partial<RequestView> = {}, extra: Partial<PlanContext> = {}): PlanContext {
  return {
    script: { turns: [] },
    view: {
      api: 'responses',
      model: 'gpt-5.5',
      stream: true,
      tools: [
        { name: 'apply_patch', kind: 'custom' },
        { name: 'exec_command', kind: 'function' },
      ],
      toolResults: [],
      texts: ['<cwd>/repo</cwd>'],
      ...view,
    },
    vars: {},
    base: 'b_1',
    created: 1,
    requestChars: 400,
    ...extra,
  };
}

describe('planReply', () => {
  it('fills {{cwd}} from the prompt and picks the tool kind the request offered', () => {
    const plan = planReply(
      {
        text: 'in {{cwd}}',
        tools: [
          { name: 'apply_patch', arguments: '*** Add File: {{cwd}}/a' },
          { name: 'exec_command', arguments: { cmd: 'ls {{cwd}}' } },
        ],
      },
      context(),
    );
    expect(plan).toMatchObject({
      kind: 'reply',
      text: 'in /repo',
      stop: 'tool_use',
      tools: [
        { name: 'apply_patch', kind: 'custom', input: '*** Add File: /repo/a' },
        { name: 'exec_command', kind: 'function', input: '{"cmd":"ls /repo"}' },
      ],
    });
  });

  it('caller vars win over script vars, which win over the detected cwd', () => {
    const ctx = context(
      {},
      { script: { turns: [], vars: { cwd: '/script', who: 'script' } }, vars: { who: 'caller' } },
    );
    expect(planReply({ text: '{{cwd}} {{who}}' }, ctx)).toMatchObject({ text: '/script caller' });
  });

  it('estimates usage when the script gives none, and uses the script figures when it does', () => {
    expect(planReply({ text: 'abcdefgh' }, context())).toMatchObject({
      usage: { input: 100, output: 2, cachedInput: 0, reasoning: 0 },
    });
    expect(
      planReply(
        { text: 'x', usage: { input: 7, cachedInput: 3 } },
        context({}, { script: { turns: [], defaults: { usage: { output: 9 } } } }),
      ),
    ).toMatchObject({ usage: { input: 7, output: 1, cachedInput: 3 } });
    expect(
      planReply({ text: 'x' }, context({}, { script: { turns: [], defaults: { usage: { output: 9 } } } })),
    ).toMatchObject({ usage: { output: 9 } });
  });

  it('turns delay, pace and stall into timing (numbers are seconds)', () => {
    expect(planReply({ text: 'x', delay: '250ms', pace: 0.5, stall: true }, context()).timing).toEqual({
      delayMs: 250,
      paceMs: 500,
      stall: 'first-content',
    });
    expect(planReply({ text: 'x', stall: { afterEvents: 2 } }, context()).timing).toEqual({
      delayMs: 0,
      paceMs: 0,
      stall: 2,
    });
  });

  it('an error reply becomes an error plan with its retry-after', () => {
    expect(planReply({ error: { status: 429, retryAfter: 2 } }, context())).toMatchObject({
      kind: 'error',
      status: 429,
      retryAfter: 2,
      message: 'scripted error 429',
    });
  });

  it('with no reply (script exhausted) says so in text', () => {
    expect(planReply(undefined, context())).toMatchObject({
      kind: 'reply',
      stop: 'end',
      text: 'neo model server: the script has no turn left that matches this request.',
    });
  });
});

describe('planAux', () => {
  it('answers with the aux text, or JSON built from the requested schema', () => {
    expect(planAux(context({ tools: [] }, { script: { turns: [], aux: { text: 'Title' } } }))).toMatchObject({
      text: 'Title',
      tools: [],
    });
    const schema = { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] };
    expect(
      planAux(context({ tools: [], jsonSchema: schema }, { script: { turns: [], aux: { text: 'Fix bug' } } })),
    ).toMatchObject({ text: '{"title":"Fix bug"}' });
  });
  it('ignores the script defaults (an aux reply never stalls or waits)', () => {
    const plan = planAux(context({ tools: [] }, { script: { turns: [], defaults: { delay: 5, chunk: 2 } } }));
    expect(plan).toMatchObject({ timing: { delayMs: 0, paceMs: 0 }, chunk: 8 });
  });
});
