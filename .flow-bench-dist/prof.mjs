import { startRun } from './engine/flow/index.js';
const home = '/tmp/prof/home';
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  const o = await startRun({ home, cwd: '/tmp/prof/seq', planFile: 'plan.yaml' });
  console.log(o.status, Math.round(performance.now() - t));
}
const { spawn } = await import('node:child_process');
const t = performance.now();
for (let i = 0; i < 100; i++) await new Promise((r) => spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' }).on('exit', r));
console.log('baseline', Math.round(performance.now() - t));
const { execa } = await import('execa');
const t2 = performance.now();
for (let i = 0; i < 100; i++) await execa('/bin/sh', ['-c', 'true'], { stdin: 'ignore', buffer: false, reject: false, detached: true, cleanup: true });
console.log('execa', Math.round(performance.now() - t2));
