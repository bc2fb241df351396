import { createInterface } from 'node:readline';
import { execa, type ResultPromise } from 'execa';
import { NeoError } from '../../util/errors.js';
import { signalGroup, terminateGroup } from './process-group.js';

/** How a CLI process ended. */
export interface CliExit {
  exitCode: number | undefined;
  signal: string | undefined;
  /** Spawning itself failed (ENOENT, EACCES …). */
  spawnError: string | undefined;
}

export interface CliProcessOptions {
  file: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Keep this many stderr lines for error events. */
  stderrLines?: number;
}

/** Groups still alive, killed outright if neo itself exits without stopping its sessions. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function trackGroup(pgid: number): void {
  liveGroups.add(pgid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const group of liveGroups) signalGroup(group, 'SIGKILL');
  });
}

/**
 * One CLI child in its own process group, speaking newline-delimited text on stdout. stdin
 * stays a pipe (every protocol here is bidirectional); stderr is kept as a short tail.
 */
export class CliProcess {
  readonly pid: number;
  readonly exited: Promise<CliExit>;
  readonly #child: ResultPromise;
  readonly #stderr: string[] = [];
  readonly #stderrMax: number;
  #running = true;
  #lineListener: ((line: string) => void) | undefined;
  #stdoutDone: () => void = () => undefined;

  private constructor(child: ResultPromise, pid: number, stderrLines: number) {
    this.#child = child;
    this.pid = pid;
    this.#stderrMax = stderrLines;
    // Exit is reported only after the last stdout line was delivered, so a final `result`
    // line is never mistaken for an exit mid-turn.
    const stdoutDone = new Promise<void>((resolve) => {
      this.#stdoutDone = resolve;
    });
    this.exited = Promise.all([
      child.then(
        (result) => settle(result),
        (error: unknown) => settle(error as SettleInput),
      ),
      stdoutDone,
    ]).then(([exit]) => {
      this.#running = false;
      return exit;
    });
  }

  /** Spawns the CLI; throws when the OS gives no pid (the binary cannot be executed). */
  static spawn(options: CliProcessOptions): CliProcess {
    const child = execa(options.file, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      extendEnv: false,
      detached: true,
      cleanup: false,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      stripFinalNewline: false,
    });
    const pid = child.pid;
    if (pid === undefined) {
      child.catch(() => undefined);
      throw new NeoError('TRANSPORT_START_FAILED', `could not start ${options.file}`, {
        hint: 'check that the file is an executable program',
      });
    }
    trackGroup(pid);
    const proc = new CliProcess(child, pid, options.stderrLines ?? 20);
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
   * Ends the process and every process it started: closes stdin, then SIGTERM to the group,
   * SIGKILL after `graceMs`. Safe to call any number of times.
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
    await terminateGroup(this.pid, graceMs);
    await this.exited;
    liveGroups.delete(this.pid);
  }

  #wire(): void {
    const child = this.#child;
    child.stdin?.on('error', () => undefined);
    // When the CLI itself dies, whatever it started dies with it: an orphan holding stdout
    // open would otherwise keep the session from ever seeing the exit.
    child.on('exit', () => void terminateGroup(this.pid, 1_000));
    if (child.stdout !== null) {
      const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
      lines.on('line', (line) => this.#lineListener?.(line));
      lines.on('close', () => this.#stdoutDone());
    } else {
      this.#stdoutDone();
    }
    if (child.stderr !== null) {
      const lines = createInterface({ input: child.stderr, crlfDelay: Infinity });
      lines.on('line', (line) => {
        if (line.trim() === '') return;
        this.#stderr.push(line.length > 500 ? `${line.slice(0, 500)}…` : line);
        if (this.#stderr.length > this.#stderrMax) this.#stderr.shift();
      });
    }
  }
}

type SettleInput = { exitCode?: number; signal?: string; code?: string; originalMessage?: string };

function settle(result: SettleInput): CliExit {
  const spawnError =
    result.code !== undefined && result.exitCode === undefined && result.signal === undefined
      ? (result.originalMessage ?? result.code)
      : undefined;
  return { exitCode: result.exitCode, signal: result.signal, spawnError };
}
