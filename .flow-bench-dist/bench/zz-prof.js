import http from 'node:http';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Agent, createProvider, DEFAULT_RETRY, postStream } from '../engine/agent/index.js';
const ka = new http.Agent({ keepAlive: true });
const base = 'http://127.0.0.1:47313';
for (const api of ['openai-responses', 'anthropic']) {
    const provider = createProvider({ name: 'b', api, baseUrl: api.startsWith('openai') ? `${base}/v1` : base, headers: {}, headersTimeoutMs: 60000, idleTimeoutMs: 60000, retry: DEFAULT_RETRY });
    await new Agent({ provider, model: 'm', system: 's' }).send('x');
    await new Promise((r) => setTimeout(r, 300));
    const logged = readFileSync('/tmp/serve-log.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l)).at(-1);
    const url = `${base}${logged.path}`;
    const body = JSON.stringify(logged.body);
    const bare = () => new Promise((resolve) => { const req = http.request(url, { method: 'POST', agent: ka, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => { res.on('data', () => { }); res.on('end', resolve); }); req.end(body); });
    const raw = async () => { const r = await postStream({ provider: 'b', url, headers: { 'content-type': 'application/json' }, body, headersTimeoutMs: 60000, idleTimeoutMs: 60000 }); await r.consume(() => { }); };
    const a = [], b = [], c = [];
    for (let i = 0; i < 150; i++) {
        let t = performance.now();
        await new Agent({ provider, model: 'm', system: 's', onEvent: () => { } }).send('x');
        a.push(performance.now() - t);
        t = performance.now();
        await bare();
        b.push(performance.now() - t);
        t = performance.now();
        await raw();
        c.push(performance.now() - t);
    }
    const med = (x) => x.sort((p, q) => p - q)[x.length >> 1].toFixed(2);
    console.log(api, 'neo', med(a), 'bare', med(b), 'postStream only', med(c));
}
ka.destroy();
