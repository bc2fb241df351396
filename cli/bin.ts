#!/usr/bin/env node
import { drained } from './drain.js';
import { guardTheEnd } from './end-guard.js';
import { formatError } from './format-error.js';
import { exitCodeFor, EXIT } from './exit-codes.js';
import { processIO } from './io.js';
import { invocationOf, setInvocation } from './invocation.js';
import { buildProgram } from './program.js';
import { journalProcessesIn, stopLiveGroups } from '../engine/execution/registry/index.js';
import { neoHome } from '../engine/util/neo-home.js';
import { packageVersion } from '../engine/util/package-root.js';
import { absolutePathEntries } from '../engine/util/absolute-path-env.js';

/** The only place neo exits. */
async function main(): Promise<number> {
  // Before anything is spawned: every process neo starts by name (git, a backend's probe, a
  // command) is looked up on this PATH, from folders confined steps write (util/absolute-path-env.ts).
  if (process.env.PATH !== undefined) process.env.PATH = absolutePathEntries(process.env.PATH);
  const io = processIO();
  setInvocation(invocationOf(io.env, process.argv[1], io.cwd));
  // Every process group a command starts is journaled, so if neo dies without stopping them
  // (kill -9), the next neo that looks (flow resume, flow list, the session daemon) does.
  journalProcessesIn(neoHome(io.env));
  const { program, result } = buildProgram(io, packageVersion(), process.argv);
  try {
    await program.parseAsync(process.argv);
    return result.exitCode;
  } catch (error) {
    const code = exitCodeFor(error);
    if (code === EXIT.ok) return code;
    // commander already printed its own usage errors.
    if (!isCommanderError(error)) io.stderr.write(`${formatError(error, io)}\n`);
    return code;
  } finally {
    // Whatever a command left running (a background server a step started) ends with it.
    await stopLiveGroups(1_000);
  }
}

function isCommanderError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    String((error as { code?: unknown }).code ?? '').startsWith('commander.')
  );
}

const guard = guardTheEnd(process.stderr, ['neo', ...process.argv.slice(2, 4)].join(' '));

/** Exits once stdout and stderr have reached their readers, however slow (a pipe into jq). */
async function exitDrained(code: number): Promise<never> {
  await Promise.all([drained(process.stdout), drained(process.stderr)]);
  process.exit(code);
}

main().then(
  (code) => {
    guard.settled();
    // Exit explicitly: a command may leave a watcher or a child's pipe open on purpose.
    void exitDrained(code);
  },
  (error: unknown) => {
    guard.settled();
    process.stderr.write(
      `neo: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    void exitDrained(EXIT.internal);
  },
);
