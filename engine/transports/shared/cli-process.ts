import { createInterface } from 'node:readline';
import { basename } from 'node:path';
import { programBind, sandboxOf, type ProcessResult, type RunningProcess } from '../../execution/index.js';
import type { SessionSandbox } from '../types.js';
import { NeoError } from '../../util/errors.js';
import { DEFAULT_MAX_PROCESSES } from '../../util/process-limits.js';

/** How a CLI process ended: the process module's result, the fields a session reads. */
export type CliExit = Pick<ProcessResult, 'exitCode' | 'signal' | 'spawnError' | 'processLimited'> & {
  /** The process bound it ran under, when it had one. */
  maxProcesses?: number;
};

/** How a CLI ended, in words: what a session's error and a failed start say. */
export function describeCliExit(exit: CliExit): string {
  if (exit.spawnError !== undefined) return exit.spawnError;
  if (exit.processLimited)
    return `it hit its limit of ${exit.maxProcesses ?? '?'} processes and was killed; a step that needs more says so with \`maxProcesses:\` (a session: \`sandbox.maxProcesses\`)`;
  return exit.signal !== undefined ? `killed by ${exit.signal}` : `exit code ${exit.exitCode ?? '?'}`;
}

export interface CliProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Keep this many stderr lines for error events. */
  stderrLines?: number;
  /** Run it confined (bwrap): the sandbox leads the group, so kill-tree and the registry work unchanged. */
  sandbox?: SessionSandbox;
}

/**
 * One CLI child (through the process module: its own group, recorded, killed as a tree),
 * speaking newline-delimited text on stdout. stdin stays a pipe (every protocol here is
 * bidirectional); stderr is kept as a short tail.
 */
export class CliProcess {
  readonly pid: number;
  readonly exited: Promise<CliExit>;
  readonly #child: RunningProcess;
  readonly #stderr: string[] = [];
  readonly #stderrMax: number;
  #running = true;
  #lineListener: ((line: string) => void) | undefined;
  #stderrListener: ((line: string) => void) | undefined;

  private constructor(child: RunningProcess, pid: number, stderrLines: number, maxProcesses: number | undefined) {
    this.#child = child;
    this.pid = pid;
    this.#stderrMax = stderrLines;
    // The result comes once stdout is closed too, so a final `result` line is never mistaken
    // for an exit mid-turn.
    this.exited = child.result.then((result) => {
      this.#running = false;
      return {
        exitCode: result.exitCode,
        signal: result.signal,
        spawnError: result.spawnError,
        processLimited: result.processLimited,
        ...(maxProcesses === undefined ? {} : { maxProcesses }),
      };
    });
  }

  /** Spawns the CLI; throws when the OS gives no pid (the binary cannot be executed). */
  static spawn(options: CliProcessOptions): CliProcess {
    const box = options.sandbox ?? { kind: 'none' as const, binds: [], hide: [], network: true };
    // A session started by hand or from the control plane names no bound: it gets a flow step's.
    const maxProcesses = box.maxProcesses ?? DEFAULT_MAX_PROCESSES;
    const child = sandboxOf(box.kind).spawn(
      [options.file, ...options.args],
      {
        ...box,
        binds: [...programBind(options.file, box.binds, box.hide), ...box.binds],
        cwd: options.cwd,
        env: options.env,
      },
      {
        stdin: 'pipe',
        output: 'stream',
        // When the CLI itself dies, whatever it started dies with it: an orphan holding stdout
        // open would otherwise keep the session from ever seeing the exit.
        killLeftovers: true,
        label: basename(options.file),
        maxProcesses,
      },
    );
    if (child.pid === undefined) {
      throw new NeoError('TRANSPORT_START_FAILED', `could not start ${options.file}`, {
        hint: 'check that the file is an executable program',
      });
    }
    const proc = new CliProcess(child, child.pid, options.stderrLines ?? 20, maxProcesses);
    proc.#wire();
    return proc;
  }

  get running(): boolean {
    return this.#running;
  }

  /** Receives every stdout line (without its newline). Set once, before lines can arrive. */
  onLine(listener: (line: string) => void): void {
    this.#lineListener = listener;
  }

  /** Receives every non-blank stderr line too (CLIs that log their retries there). Set once. */
  onStderrLine(listener: (line: string) => void): void {
    this.#stderrListener = listener;
  }

  /** Writes one line to stdin; false when stdin is already closed. */
  writeLine(line: string): boolean {
    const stdin = this.#child.stdin;
    if (!this.#running || stdin === null || stdin.destroyed || stdin.writableEnded) return false;
    stdin.write(`${line}\n`);
    return true;
  }

  closeStdin(): void {
    const stdin = this.#child.stdin;
    if (stdin !== null && !stdin.writableEnded) stdin.end();
  }

  /** The last stderr lines, joined. */
  stderrTail(): string {
    return this.#stderr.join('\n');
  }

  /**
   * Ends the process and every process it started: closes stdin, then kill-tree (SIGTERM,
   * SIGKILL after `graceMs`). Safe to call any number of times.
   */
  async terminate(graceMs: number): Promise<void> {
    this.closeStdin();
    // EOF first: a CLI that exits on its own flushes its session files (resume depends on them).
    if (this.#running) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        this.exited,
        new Promise((resolve) => (timer = setTimeout(resolve, Math.min(graceMs, 1_000)))),
      ]);
      clearTimeout(timer);
    }
    await this.#child.kill(graceMs);
  }

  #wire(): void {
    const { stdout, stderr } = this.#child;
    if (stdout !== null) {
      const lines = createInterface({ input: stdout, crlfDelay: Infinity });
      // A line is passed on only while the process bound holds: once it refused a fork the CLI
      // is being killed, and a turn it reports done after its flood must not count as done.
      lines.on('line', (line) => {
        if (!this.#child.boundHit()) this.#lineListener?.(line);
      });
    }
    if (stderr !== null) {
      const lines = createInterface({ input: stderr, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (line.trim() === '') return;
        this.#stderr.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
        if (this.#stderr.length > this.#stderrMax) this.#stderr.shift();
        this.#stderrListener?.(line);
      });
    }
  }
}
