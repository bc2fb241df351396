import { spawn } from 'node:child_process';
const big = { ...process.env };
for (let i = 0; i < 400; i++) big[`NEO_STEP_S${i}_STDOUT`] = 'x'.repeat(20);
const run = async (env, detached) => { const t = performance.now(); for (let i = 0; i < 100; i++) await new Promise((r) => spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore', env, detached }).on('exit', r)); return Math.round(performance.now() - t); };
for (let k = 0; k < 2; k++) console.log('plain', await run(process.env, false), 'bigenv', await run(big, false), 'detached', await run(process.env, true));
