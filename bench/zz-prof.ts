import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { SseDecoder, BlockAssembler } from '../engine/agent/index.js';
const body = JSON.stringify({ model: 'm', max_tokens: 8192, stream: true, messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }], system: [{ type: 'text', text: 's' }] });
const chunks: string[] = await new Promise((resolve) => { const out: string[] = []; const req = http.request('http://127.0.0.1:47311/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => { res.setEncoding('utf8'); res.on('data', (c: string) => out.push(c)); res.on('end', () => resolve(out)); }); req.end(body); });
console.log('chunks', chunks.length, 'bytes', chunks.join('').length);
for (let round = 0; round < 3; round++) {
  const t = performance.now();
  for (let i = 0; i < 200; i++) {
    const d = new SseDecoder(); const b = new BlockAssembler('x', 'anthropic'); let partial = '';
    for (const c of chunks) for (const e of d.push(c)) { const data = JSON.parse(e.data) as any; if (data.type === 'content_block_delta') { b.text(data.index, data.delta.text); partial += data.delta.text; } }
    b.blocks();
  }
  console.log('cpu per turn ms', ((performance.now() - t) / 200).toFixed(3));
}
