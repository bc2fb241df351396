import { describe, expect, it } from 'vitest';
import { SseDecoder, type SseEvent } from '../../../engine/agent/index.js';

describe('SSE decoding', () => {
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
  const expected = [
    { event: 'delta', data: '{"t":"a"}' },
    { event: 'other', data: '{"t":"b"}' },
    { event: '', data: 'line1\nline2' },
    { event: '', data: '{"t":"c"}' },
    { event: '', data: '{"t":"d"}' },
    { event: 'delta', data: '{"t":"e"}' },
    { event: '', data: '{"t":"f"}' },
  ];

  function decodeAll(chunks: string[]): SseEvent[] {
    const decoder = new SseDecoder();
    const out: SseEvent[] = [];
    const onEvent = (data: string, event: string) => out.push({ event, data });
    for (const chunk of chunks) decoder.decode(chunk, onEvent);
    decoder.finish(onEvent);
    return out;
  }

  it('gives the same events however the stream is cut, with any line-end style', () => {
    for (const text of [stream, stream.replaceAll('\n', '\r\n'), stream.replaceAll('\n', '\r')]) {
      expect(decodeAll([text])).toEqual(expected);
      expect(decodeAll([...text])).toEqual(expected);
      for (let cut = 1; cut < text.length; cut++)
        expect(decodeAll([text.slice(0, cut), text.slice(cut)])).toEqual(expected);
      for (let a = 1; a < text.length; a += 3)
        for (let b = a + 1; b < text.length; b += 2)
          expect(decodeAll([text.slice(0, a), text.slice(a, b), text.slice(b)])).toEqual(expected);
    }
  });

  it('flushes a last event that has no blank line, and nothing when only a comment is left', () => {
    expect(decodeAll(['data: tail\r'])).toEqual([{ event: '', data: 'tail' }]);
    expect(decodeAll(['data: tail'])).toEqual([{ event: '', data: 'tail' }]);
    expect(decodeAll([': only a comment'])).toEqual([]);
  });

  it('reads one event that spans many chunks whole', () => {
    const text = 'x'.repeat(200_000);
    const chunks = ['data: ', ...(text.match(/.{1,1000}/g) ?? []), '\n\n'];
    expect(decodeAll(chunks)).toEqual([{ event: '', data: text }]);
  });
});
