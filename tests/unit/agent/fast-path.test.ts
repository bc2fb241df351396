/**
 * The text-delta fast paths read a delta without parsing its event. Each must give exactly what a
 * full JSON.parse would, or step aside (undefined) so the full parse runs — never misread.
 */
import { describe, expect, it } from 'vitest';
import { SseDecoder, type SseEvent } from '../../../engine/agent/index.js';
import {
  decodeStringBody,
  DeltaTemplate,
  fastDelta,
  fastResponsesDelta,
  JSON_STRING_BODY,
  jsonStringBody,
} from '../../../engine/agent/providers/index.js';

/** Texts that break naive readers: quotes, backslashes, escapes, the shape's own closing characters. */
const TRICKY = [
  'plain',
  'with "quotes"',
  'back\\slash',
  'trailing\\',
  'line\nbreak\ttab\r',
  'é ✓ \u2028\u2029',
  'emoji 😀',
  '"}}',
  '"},"x":1',
  '\u0000\u001f\u007f',
  '/a/',
  '',
];

/** String bodies JSON.parse accepts, written other than JSON.stringify writes them. */
const ALTERNATE: Array<[string, string]> = [
  ['\\u0041\\u00e9', 'Aé'],
  ['\\/', '/'],
  ['\\ud83d\\ude00', '😀'],
  ['\\b\\f', '\b\f'],
];

/** Bodies JSON.parse refuses: a raw quote, a dangling or unknown escape, raw control characters. */
const INVALID = ['a"b', 'a\\', '\\x41', '\\u12G4', 'raw\nnewline', 'raw\ttab'];

const body = (text: string) => JSON.stringify(text).slice(1, -1);
const STRING_BODY = new RegExp(`^${JSON_STRING_BODY}$`);

describe('JSON string bodies', () => {
  it('decode as JSON.parse does, and invalid ones are refused by both readers', () => {
    for (const text of TRICKY) {
      expect(jsonStringBody(body(text), 0, body(text).length)).toBe(text);
      expect(STRING_BODY.test(body(text))).toBe(true);
      expect(decodeStringBody(body(text))).toBe(text);
    }
    for (const [raw, text] of ALTERNATE) {
      expect(jsonStringBody(raw, 0, raw.length)).toBe(text);
      expect(STRING_BODY.test(raw) && decodeStringBody(raw)).toBe(text);
    }
    for (const raw of INVALID) {
      expect(() => JSON.parse(`"${raw}"`)).toThrow();
      expect(jsonStringBody(raw, 0, raw.length)).toBeUndefined();
      expect(STRING_BODY.test(raw)).toBe(false);
    }
    // Bounds are honoured: only the slice between them is read.
    expect(jsonStringBody('xx"ab"yy', 3, 5)).toBe('ab');
  });
});

describe('the Anthropic delta fast path', () => {
  const event = (delta: object, index = 3) => JSON.stringify({ type: 'content_block_delta', index, delta });

  it('reads text, thinking and tool-input deltas exactly as a full parse would', () => {
    for (const text of TRICKY) {
      expect(fastDelta(event({ type: 'text_delta', text }))).toEqual({ index: 3, kind: 'text', text });
      expect(fastDelta(event({ type: 'thinking_delta', thinking: text }, 0))).toEqual({
        index: 0,
        kind: 'thinking',
        text,
      });
      expect(fastDelta(event({ type: 'input_json_delta', partial_json: text }, 12))).toEqual({
        index: 12,
        kind: 'json',
        text,
      });
    }
    for (const [raw, text] of ALTERNATE) {
      expect(
        fastDelta(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${raw}"}}`),
      ).toEqual({ index: 0, kind: 'text', text });
    }
  });

  it('steps aside for invalid strings and for any other shape', () => {
    for (const raw of INVALID)
      expect(
        fastDelta(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${raw}"}}`),
      ).toBeUndefined();
    const others = [
      JSON.stringify({ index: 0, type: 'content_block_delta', delta: { type: 'text_delta', text: 'x' } }),
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'x' }, extra: 1 }),
      JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'x' } }),
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"x"}}',
      '{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"x"}}',
      '{"type":"content_block_delta","index":-1,"delta":{"type":"text_delta","text":"x"}}',
      '{"type":"content_block_delta","index":1.0,"delta":{"type":"text_delta","text":"x"}}',
      '{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}',
      JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ];
    for (const data of others) expect(fastDelta(data)).toBeUndefined();
  });
});

describe('the Responses delta fast path', () => {
  const event = (fields: Record<string, unknown>) =>
    JSON.stringify({
      type: 'response.output_text.delta',
      sequence_number: 7,
      item_id: 'msg_1',
      output_index: 2,
      content_index: 0,
      ...fields,
    });

  it('reads every delta type, whatever flat fields surround the text', () => {
    for (const text of TRICKY)
      expect(fastResponsesDelta(event({ delta: text }))).toEqual({
        type: 'response.output_text.delta',
        index: 2,
        text,
      });
    expect(fastResponsesDelta(event({ delta: 'x', logprobs: [], obfuscation: 'Zq1' }))).toEqual({
      type: 'response.output_text.delta',
      index: 2,
      text: 'x',
    });
    expect(fastResponsesDelta(event({ delta: 'x', extra: {}, more: null, flag: true, ratio: -1.5e3 }))).toEqual({
      type: 'response.output_text.delta',
      index: 2,
      text: 'x',
    });
    const call = JSON.stringify({
      type: 'response.function_call_arguments.delta',
      sequence_number: 3,
      item_id: 'fc_1',
      output_index: 1,
      delta: '{"path":"a',
    });
    expect(fastResponsesDelta(call)).toEqual({
      type: 'response.function_call_arguments.delta',
      index: 1,
      text: '{"path":"a',
    });
    const summary = JSON.stringify({
      type: 'response.reasoning_summary_text.delta',
      item_id: 'rs_1',
      output_index: 0,
      summary_index: 0,
      delta: 'thinking',
    });
    expect(fastResponsesDelta(summary)).toEqual({
      type: 'response.reasoning_summary_text.delta',
      index: 0,
      text: 'thinking',
    });
  });

  it('steps aside whenever a full parse might read the event differently', () => {
    const others = [
      // output_index missing, or after the delta (a full parse reads these fine; the fast path need not).
      JSON.stringify({ type: 'response.output_text.delta', delta: 'x' }),
      JSON.stringify({ type: 'response.output_text.delta', delta: 'x', output_index: 0 }),
      // A repeated type or delta: JSON.parse keeps the last one.
      '{"type":"response.output_text.delta","output_index":0,"delta":"x","type":"response.completed"}',
      '{"type":"response.output_text.delta","output_index":0,"delta":"x","delta":"y"}',
      // A key spelled with an escape, a nested value, whitespace, a number JSON does not allow.
      '{"type":"response.output_text.delta","output_index":0,"del\\u0074a":"x"}',
      '{"type":"response.output_text.delta","output_index":0,"item":{"a":1},"delta":"x"}',
      '{"type":"response.output_text.delta", "output_index":0,"delta":"x"}',
      '{"type":"response.output_text.delta","sequence_number":01,"output_index":0,"delta":"x"}',
      '{"type":"response.output_text.delta","output_index":1.5,"delta":"x"}',
      '{"type":"response.output_text.delta","item_id":"a\\q","output_index":0,"delta":"x"}',
      JSON.stringify({ type: 'response.output_text.done', output_index: 0, text: 'x' }),
    ];
    for (const data of others) expect(fastResponsesDelta(data)).toBeUndefined();
    for (const raw of INVALID)
      expect(
        fastResponsesDelta(`{"type":"response.output_text.delta","output_index":0,"delta":"${raw}"}`),
      ).toBeUndefined();
  });
});

describe('the learned delta template', () => {
  const chunk = (text: string, id = 'c1') =>
    JSON.stringify({ id, model: 'm', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] });

  it('reads later deltas of the learned shape, with any valid text in the hole', () => {
    const template = new DeltaTemplate();
    expect(template.match(chunk('first'))).toBeUndefined();
    template.learn(chunk('first'), 'first');
    for (const text of TRICKY) expect(template.match(chunk(text))).toBe(text);
    for (const [raw, text] of ALTERNATE) expect(template.match(chunk('HOLE').replace('HOLE', raw))).toBe(text);
    for (const raw of INVALID) expect(template.match(chunk('HOLE').replace('HOLE', raw))).toBeUndefined();
    // Anything else around the hole is another document.
    expect(template.match(chunk('x', 'c2'))).toBeUndefined();
    expect(
      template.match(
        JSON.stringify({
          id: 'c1',
          model: 'm',
          choices: [{ index: 0, delta: { content: 'x' }, finish_reason: 'stop' }],
        }),
      ),
    ).toBeUndefined();
    expect(template.match('[DONE]')).toBeUndefined();
    // A difference after the hole that leaves the hole a valid string is still a difference.
    const numbered = new DeltaTemplate();
    numbered.learn('{"text":"first","n":1}', 'first');
    expect(numbered.match('{"text":"x","n":1}')).toBe('x');
    expect(numbered.match('{"text":"x","n":2}')).toBeUndefined();
    expect(numbered.readRun('data: {"text":"x","n":2}\n\n', 0, () => {})).toBe(-1);
    expect(numbered.match('{"text":"x","m":1}')).toBeUndefined();
  });

  it('learns nothing when the text is empty or another string holds the same value', () => {
    const ambiguous = new DeltaTemplate();
    ambiguous.learn(chunk('m'), 'm'); // also the model
    ambiguous.learn(chunk('content'), 'content'); // also a key
    ambiguous.learn(chunk(''), '');
    expect(ambiguous.match(chunk('x'))).toBeUndefined();
    const escaped = new DeltaTemplate();
    escaped.learn(chunk('a\n"b'), 'a\n"b');
    expect(escaped.match(chunk('plain'))).toBe('plain');
  });

  it('stops studying a stream whose deltas never show one clear shape', () => {
    const template = new DeltaTemplate();
    for (let i = 0; i < 4; i++) template.learn(chunk('m'), 'm');
    template.learn(chunk('first'), 'first');
    expect(template.match(chunk('x'))).toBeUndefined();
  });

  it('reads runs of whole SSE events straight from the stream text, and nothing else', () => {
    const template = new DeltaTemplate();
    template.learn(chunk('first'), 'first');
    const read = (text: string, start = 0): { end: number; texts: string[] } => {
      const texts: string[] = [];
      return { end: template.readRun(text, start, (t) => texts.push(t)), texts };
    };
    const events = [`data: ${chunk('a')}\n\n`, `data: ${chunk('b"\\')}\n\n`, `data: ${chunk('c')}\n\n`];
    const text = `${events.join('')}: comment\n\ndata: ${chunk('d')}\n`;
    // One run of three events, handed over joined, once; it stops at the comment.
    expect(read(text)).toEqual({ end: events.join('').length, texts: ['ab"\\c'] });
    expect(read(text, events[0]!.length)).toEqual({ end: events.join('').length, texts: ['b"\\c'] });
    expect(read(text, events.join('').length)).toEqual({ end: -1, texts: [] }); // a comment
    expect(read(text, text.lastIndexOf('data: ')).end).toBe(-1); // no blank line yet
    // An event cut off by the end of the text, or of another shape, ends the run before it.
    for (let cut = events[0]!.length; cut < events[0]!.length + events[1]!.length; cut++)
      expect(read(text.slice(0, cut))).toEqual({ end: events[0]!.length, texts: ['a'] });
    expect(read(`${events[0]}data: ${chunk('x', 'c2')}\n\n${events[2]}`)).toEqual({
      end: events[0]!.length,
      texts: ['a'],
    });
    expect(read(`${events[0]}data: ${chunk('HOLE').replace('HOLE', 'x\u0001')}\n\n`)).toEqual({
      end: events[0]!.length,
      texts: ['a'],
    });
    expect(read(`${events[0]}data: ${chunk('HOLE').replace('HOLE', '\\q')}\n\n`)).toEqual({
      end: events[0]!.length,
      texts: ['a'],
    });
    expect(read(`event: delta\ndata: ${chunk('a')}\n\n`).end).toBe(-1);
    expect(read(`data: ${chunk('a\nb').replace('\\n', '\n')}\n\n`).end).toBe(-1);
    // Every valid text reads exactly, alone and in a run.
    for (const t of TRICKY) expect(read(`data: ${chunk(t)}\n\ndata: ${chunk(t)}\n\n`).texts).toEqual([t + t]);
  });
});

describe('a learned template with a counter', () => {
  const delta = (n: number | string, text: string) =>
    `{"type":"response.output_text.delta","sequence_number":${n},"item_id":"msg_1","output_index":0,"delta":${JSON.stringify(text)}}`;
  const wire = (n: number | string, text: string) => `event: response.output_text.delta\ndata: ${delta(n, text)}\n\n`;

  function learned(): DeltaTemplate {
    const template = new DeltaTemplate();
    expect(
      template.learn(delta(4, 'first'), 'first', { event: 'response.output_text.delta', counter: 'sequence_number' }),
    ).toBe(true);
    return template;
  }

  it('reads events whose counter differs, as a run, and only valid integers in its place', () => {
    const template = learned();
    expect(template.match(delta(5, 'x'))).toBe('x');
    expect(template.match(delta(1234567, 'y'))).toBe('y');
    expect(template.match(delta(0, 'z'))).toBe('z');
    for (const bad of ['01', '-1', '1.5', '"5"', 'null', '']) expect(template.match(delta(bad, 'x'))).toBeUndefined();
    const texts: string[] = [];
    const run = [wire(5, 'a'), wire(6, 'b"\\'), wire(70, 'c')].join('');
    expect(template.readRun(`${run}event: response.output_text.done\ndata: {}\n\n`, 0, (t) => texts.push(t))).toBe(
      run.length,
    );
    expect(texts).toEqual(['ab"\\c']);
    // Without its event line, or with another, it is another event.
    expect(template.readRun(`data: ${delta(5, 'a')}\n\n`, 0, () => {})).toBe(-1);
    expect(
      template.readRun(wire(5, 'a').replace('event: response.output_text.delta', 'event: other'), 0, () => {}),
    ).toBe(-1);
  });

  it('keeps the counter fixed when its key is not there once, before the text', () => {
    const twice = new DeltaTemplate();
    twice.learn('{"sequence_number":1,"a":{"sequence_number":1},"delta":"first"}', 'first', {
      counter: 'sequence_number',
    });
    expect(twice.match('{"sequence_number":1,"a":{"sequence_number":1},"delta":"x"}')).toBe('x');
    expect(twice.match('{"sequence_number":2,"a":{"sequence_number":1},"delta":"x"}')).toBeUndefined();
    const after = new DeltaTemplate();
    after.learn('{"delta":"first","sequence_number":1}', 'first', { counter: 'sequence_number' });
    expect(after.match('{"delta":"x","sequence_number":1}')).toBe('x');
    expect(after.match('{"delta":"x","sequence_number":2}')).toBeUndefined();
  });
});

describe('SSE decoding with a fast path', () => {
  const stream = [
    'event: delta\ndata: {"t":"a"}\n\n',
    ': keep-alive\n\n',
    'event: other\ndata: {"t":"b"}\n\n',
    'data: line1\ndata: line2\n\n',
    'data: {"t":"c"}\n\n',
    'id: 4\ndata: {"t":"d"}\n\n',
    'event: delta\ndata: {"t":"e"}\n\n',
    'data:{"t":"f"}\n\n',
  ].join('');

  /** Reads `event: delta` events whole; the rest go to the listener. */
  function decodeAll(chunks: string[], fastToo: boolean): Array<SseEvent & { fast?: true }> {
    const decoder = new SseDecoder();
    const out: Array<SseEvent & { fast?: true }> = [];
    const head = 'event: delta\ndata: ';
    const fast = (text: string, start: number): number => {
      if (!text.startsWith(head, start)) return -1;
      const end = text.indexOf('\n\n', start);
      if (end === -1 || text.indexOf('\n', start + head.length) !== end) return -1;
      out.push({ event: 'delta', data: text.slice(start + head.length, end), fast: true });
      return end + 2;
    };
    const onEvent = (data: string, event: string) => out.push({ event, data });
    for (const chunk of chunks) decoder.decode(chunk, onEvent, fastToo ? fast : undefined);
    decoder.finish(onEvent);
    return out;
  }

  const plain = (events: Array<SseEvent & { fast?: true }>) => events.map(({ event, data }) => ({ event, data }));

  it('gives the same events with or without it, however the stream is cut', () => {
    const expected = [
      { event: 'delta', data: '{"t":"a"}' },
      { event: 'other', data: '{"t":"b"}' },
      { event: '', data: 'line1\nline2' },
      { event: '', data: '{"t":"c"}' },
      { event: '', data: '{"t":"d"}' },
      { event: 'delta', data: '{"t":"e"}' },
      { event: '', data: '{"t":"f"}' },
    ];
    const whole = decodeAll([stream], true);
    expect(plain(whole)).toEqual(expected);
    expect(whole.filter((e) => e.fast).map((e) => e.data)).toEqual(['{"t":"a"}', '{"t":"e"}']);
    expect(plain(decodeAll([stream], false))).toEqual(expected);
    for (let cut = 1; cut < stream.length; cut++) {
      expect(plain(decodeAll([stream.slice(0, cut), stream.slice(cut)], true))).toEqual(expected);
    }
    expect(plain(decodeAll([...stream], true))).toEqual(expected);
    // Three chunks, every pair of cuts: a line completed by a chunk that holds more events.
    for (let a = 1; a < stream.length; a += 3) {
      for (let b = a + 1; b < stream.length; b += 2)
        expect(plain(decodeAll([stream.slice(0, a), stream.slice(a, b), stream.slice(b)], true))).toEqual(expected);
    }
    const crlf = stream.replaceAll('\n', '\r\n');
    for (let cut = 1; cut < crlf.length; cut++)
      expect(plain(decodeAll([crlf.slice(0, cut), crlf.slice(cut)], false))).toEqual(expected);
  });

  it('is offered only events that start with nothing pending', () => {
    // The event line arrives alone: its data completes in the next chunk, read line by line.
    const events = decodeAll(['event: delta\n', 'data: {"t":"a"}\n\nevent: delta\ndata: {"t":"b"}\n\n'], true);
    expect(events).toEqual([
      { event: 'delta', data: '{"t":"a"}' },
      { event: 'delta', data: '{"t":"b"}', fast: true },
    ]);
  });
});
