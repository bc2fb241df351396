#!/usr/bin/env node
// A wire tap between neo's adapter and a real CLI: runs WIRE_TAP_BIN with this process's argv and
// appends every stdin, stdout and stderr line to the JSONL file WIRE_TAP_LOG, as
// {"dir":"in"|"out"|"err","line":…,"ms":<since start>}, then {"dir":"eof"} when neo closes stdin and {"dir":"exit"}
// with the CLI's exit code and signal. It stays in the CLI's process group, so stopping the session
// stops both. Used to capture the real CLIs' shapes as fixtures.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const bin = process.env.WIRE_TAP_BIN;
const log = process.env.WIRE_TAP_LOG;
if (!bin || !log) {
  process.stderr.write('wire-tap: set WIRE_TAP_BIN and WIRE_TAP_LOG\n');
  process.exit(2);
}
const env = { ...process.env };
delete env.WIRE_TAP_BIN;
delete env.WIRE_TAP_LOG;
const child = spawn(bin, process.argv.slice(2), { stdio: ['pipe', 'pipe', 'pipe'], env });
const started = Date.now();
const record = (dir, line) => appendFileSync(log, `${JSON.stringify({ dir, line, ms: Date.now() - started })}\n`);
const tap = (input, dir, output) => {
  createInterface({ input, crlfDelay: Infinity }).on('line', (line) => {
    record(dir, line);
    output?.write(`${line}\n`);
  });
};
tap(process.stdin, 'in', child.stdin);
tap(child.stdout, 'out', process.stdout);
tap(child.stderr, 'err', process.stderr);
process.stdin.on('end', () => {
  record('eof', '');
  child.stdin.end();
});
child.stdin.on('error', () => undefined);
for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => child.kill(signal));
child.on('close', (code, signal) => {
  record('exit', JSON.stringify({ code, signal }));
  process.exitCode = code ?? 1;
  setTimeout(() => process.exit(), 50);
});
