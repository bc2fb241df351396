/**
 * Background shells: commands started with `run_in_background`, each in its own process group
 * and the session's sandbox, stdout and stderr going to a per-shell log file, stdin closed. `readNew` returns only output
 * produced since the last read (an offset per shell; a replaced log file is detected by its
 * device and inode). `killAll` runs when the session stops, so no command outlives it.
 */
import { closeSync, openSync } from 'node:fs';
import { mkdir, open, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { groupAlive, type RunningProcess } from '../../execution/index.js';
import { commandShell, spawnCommand, type CommandSandbox } from './shell-env.js';

export interface ShellInfo {
  id: string;
  pid: number;
  command: string;
  /** null while running. */
  exitCode: number | null;
  signal: string | null;
}

interface Shell extends ShellInfo {
  process: RunningProcess;
  log: string;
  offset: number;
  identity: string | undefined;
  done: Promise<void>;
}

export class BackgroundShells {
  readonly #dir: string;
  readonly #removeDir: boolean;
  readonly #shells = new Map<string, Shell>();
  #next = 1;
  #closed = false;

  /** `dir` holds the log files; `removeDir` deletes it on killAll (a private temp folder). */
  constructor(dir: string, options: { removeDir?: boolean } = {}) {
    this.#dir = dir;
    this.#removeDir = options.removeDir ?? false;
  }

  /** Starts `command` in the background; resolves once it is spawned. */
  async start(
    command: string,
    options: { cwd: string; env: NodeJS.ProcessEnv; sandbox?: CommandSandbox },
  ): Promise<ShellInfo> {
    if (this.#closed) throw new Error('the session is stopping; no new background shells');
    await mkdir(this.#dir, { recursive: true });
    const id = `sh_${this.#next++}`;
    const log = join(this.#dir, `${id}.log`);
    const fd = openSync(log, 'a');
    let child: RunningProcess;
    try {
      // The log's file descriptor goes straight to the child, so output lands in the file with no
      // trip through this process (and the log stays out of the sandbox's sight).
      child = spawnCommand([commandShell(options.env), '-c', command], options, {
        output: fd,
        label: 'background shell',
      });
    } finally {
      closeSync(fd);
    }
    const pid = child.pid;
    if (pid === undefined) {
      const result = await child.result;
      throw new Error(`could not start the command: ${result.spawnError ?? 'spawn failed'}`);
    }
    const shell: Shell = {
      id,
      pid,
      command,
      exitCode: null,
      signal: null,
      process: child,
      log,
      offset: 0,
      identity: undefined,
      done: Promise.resolve(),
    };
    shell.done = child.result.then((result) => {
      shell.exitCode = result.exitCode ?? null;
      shell.signal = result.signal ?? null;
      if (shell.exitCode === null && shell.signal === null) shell.exitCode = -1;
    });
    this.#shells.set(id, shell);
    return this.#info(shell);
  }

  get(id: string): ShellInfo | undefined {
    const shell = this.#shells.get(id);
    return shell === undefined ? undefined : this.#info(shell);
  }

  list(): ShellInfo[] {
    return [...this.#shells.values()].map((s) => this.#info(s));
  }

  /** Output written since the last read, at most `maxBytes` (the newest; older excess is skipped). */
  async readNew(id: string, maxBytes: number): Promise<{ output: string; dropped: number; info: ShellInfo }> {
    const shell = this.#need(id);
    // The status is taken before the read: "exited" then promises that all its output was read.
    const status = this.#info(shell);
    const info = await stat(shell.log);
    const identity = `${info.dev}:${info.ino}`;
    if (shell.identity !== undefined && shell.identity !== identity) shell.offset = 0;
    if (info.size < shell.offset) shell.offset = 0;
    shell.identity = identity;
    const available = info.size - shell.offset;
    const dropped = Math.max(0, available - maxBytes);
    const length = available - dropped;
    let output = '';
    if (length > 0) {
      const handle = await open(shell.log, 'r');
      try {
        const buffer = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buffer, 0, length, shell.offset + dropped);
        output = buffer.subarray(0, bytesRead).toString('utf8');
      } finally {
        await handle.close();
      }
    }
    shell.offset = info.size;
    return { output, dropped, info: status };
  }

  /** SIGTERM to the shell's group, SIGKILL after a grace period; resolves once it has exited. */
  async kill(id: string): Promise<ShellInfo> {
    const shell = this.#need(id);
    await shell.process.kill();
    await shell.done;
    return this.#info(shell);
  }

  /** Kills every shell still running (session stop). Idempotent. */
  async killAll(): Promise<void> {
    this.#closed = true;
    await Promise.all(
      [...this.#shells.values()]
        .filter((s) => s.exitCode === null || groupAlive(s.pid))
        .map((s) => s.process.kill().then(() => s.done)),
    );
    if (this.#removeDir) await rm(this.#dir, { recursive: true, force: true });
  }

  #need(id: string): Shell {
    const shell = this.#shells.get(id);
    if (shell === undefined)
      throw new Error(
        `no background shell ${id}${this.#shells.size > 0 ? `; shells: ${[...this.#shells.keys()].join(', ')}` : ''}`,
      );
    return shell;
  }

  #info(shell: Shell): ShellInfo {
    return { id: shell.id, pid: shell.pid, command: shell.command, exitCode: shell.exitCode, signal: shell.signal };
  }
}
