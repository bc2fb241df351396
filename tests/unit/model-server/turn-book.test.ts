import { describe, expect, it } from 'vitest';
import type { ModelScript } from '../../../engine/model-server/index.js';
import type { RequestView } from '../../../engine/model-server/request-view.js';
import { TurnBook, textMatches } from '../../../engine/model-server/turn-book.js';

function view(overrides: Partial<RequestView> = {}): RequestView {
  return {
    api: 'anthropic',
    model: 'm',
    stream: true,
    tools: [{ name: 'Write', kind: 'function' }],
    toolResults: [],
    texts: [],
    ...overrides,
  };
}

const picked = (book: TurnBook, v: RequestView) => {
  const pick = book.pick(v);
  return pick.source === 'turn' ? pick.index : pick.source;
};

describe('TurnBook', () => {
  it('answers main requests in order and falls back when the script runs out', () => {
    const book = new TurnBook({ turns: [{ text: 'a' }, { text: 'b' }] });
    expect([picked(book, view()), picked(book, view()), picked(book, view())]).toEqual([0, 1, 'fallback']);
    expect(book.state()).toEqual({ used: [1, 1], unmatched: 1 });
  });

  it('answers requests without tools as aux, without spending a turn', () => {
    const book = new TurnBook({ turns: [{ text: 'a' }] });
    expect(picked(book, view({ tools: [] }))).toBe('aux');
    expect(book.state()).toEqual({ used: [0], next: 0, unmatched: 0 });
    expect(picked(book, view())).toBe(0);
  });

  it('with aux.detect never, a request without tools takes a turn', () => {
    const book = new TurnBook({ aux: { detect: 'never' }, turns: [{ text: 'a' }] });
    expect(picked(book, view({ tools: [] }))).toBe(0);
  });

  it('branches on the last tool result: the first unused matching turn answers', () => {
    const script: ModelScript = {
      turns: [
        { tools: [{ name: 'Write' }] },
        { when: { toolResult: { isError: true } }, text: 'denied' },
        { when: { toolResult: 'created' }, text: 'ok' },
      ],
    };
    const denied = new TurnBook(script);
    picked(denied, view());
    expect(picked(denied, view({ toolResults: [{ text: 'Host policy: no', isError: true }] }))).toBe(1);
    const allowed = new TurnBook(script);
    picked(allowed, view());
    expect(picked(allowed, view({ toolResults: [{ text: 'File created', isError: false }] }))).toBe(2);
  });

  it('matches the last user message, the offered tools, the api and the model', () => {
    const book = new TurnBook({
      turns: [
        { when: { user: { matches: '^second' } }, text: '2', times: 'always' },
        { when: { toolOffered: 'apply_patch', api: 'responses' }, text: 'codex' },
        { when: { model: { equals: 'big' } }, text: 'big' },
      ],
    });
    expect(picked(book, view({ lastUser: 'second round' }))).toBe(0);
    expect(picked(book, view({ lastUser: 'second again' }))).toBe(0);
    expect(picked(book, view({ api: 'responses', tools: [{ name: 'apply_patch', kind: 'custom' }] }))).toBe(1);
    expect(picked(book, view({ model: 'bigger' }))).toBe('fallback');
    expect(picked(book, view({ model: 'big' }))).toBe(2);
  });

  it('honours times: a count of uses', () => {
    const book = new TurnBook({ turns: [{ text: 'x', times: 2 }, { text: 'y' }] });
    expect([picked(book, view()), picked(book, view()), picked(book, view())]).toEqual([0, 0, 1]);
  });

  it('a tool-result rule matches on the tool name', () => {
    const book = new TurnBook({ turns: [{ when: { toolResult: { tool: 'Bash', contains: 'ok' } }, text: 'x' }] });
    expect(picked(book, view({ toolResults: [{ text: 'ok', isError: false, tool: 'Write' }] }))).toBe('fallback');
    expect(picked(book, view({ toolResults: [{ text: 'ok', isError: false, tool: 'Bash' }] }))).toBe(0);
  });
});

describe('textMatches', () => {
  it('string = contains; map conditions must all hold', () => {
    expect(textMatches('ell', 'hello')).toBe(true);
    expect(textMatches({ contains: 'ell', equals: 'hello' }, 'hello')).toBe(true);
    expect(textMatches({ contains: 'ell', matches: '^x' }, 'hello')).toBe(false);
  });
});
