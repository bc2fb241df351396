/**
 * A real terminal for tests: a tmux server on its own socket, one window per program, keys
 * typed with send-keys and the screen read with capture-pane. `close()` kills the server and
 * everything it runs.
 */
import { execa } from 'execa';

export class Tmux {
  readonly socket = `neo-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  #windows = 0;

  /**
   * Runs `argv` in a new 200×50 window with `env` and `cwd`; when it exits, the window says
   * `[exit N]` and stays, so the test can read its last screen.
   */
  async start(argv: string[], options: { cwd: string; env: Record<string, string> }): Promise<string> {
    const target = `w${this.#windows++}`;
    const env = Object.entries(options.env).map(([k, v]) => `${k}=${quote(v)}`);
    const line = `env ${env.join(' ')} ${argv.map(quote).join(' ')}; echo "[exit $?]"; sleep 600`;
    const first = this.#windows === 1;
    await this.#tmux(
      first
        ? ['new-session', '-d', '-s', 'test', '-n', target, '-x', '200', '-y', '50', '-c', options.cwd, line]
        : ['new-window', '-d', '-t', 'test', '-n', target, '-c', options.cwd, line],
    );
    return target;
  }

  /** Types `text` literally, then presses Enter. */
  async type(target: string, text: string): Promise<void> {
    await this.#tmux(['send-keys', '-t', `test:${target}`, '-l', text]);
    await this.#tmux(['send-keys', '-t', `test:${target}`, 'Enter']);
  }

  /** Presses keys by tmux name (C-c, C-d, Enter). */
  async keys(target: string, ...keys: string[]): Promise<void> {
    await this.#tmux(['send-keys', '-t', `test:${target}`, ...keys]);
  }

  /** The window's screen and scroll-back, wrapped lines joined. */
  async screen(target: string): Promise<string> {
    const { stdout } = await this.#tmux(['capture-pane', '-p', '-J', '-S', '-500', '-t', `test:${target}`]);
    return stdout;
  }

  /** Waits until the screen matches `pattern` (polling); fails with the screen after `timeoutMs`. */
  async waitFor(target: string, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const screen = await this.screen(target);
      if (pattern.test(screen)) return screen;
      if (Date.now() > until) throw new Error(`the terminal never showed ${pattern}; it shows:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async close(): Promise<void> {
    await this.#tmux(['kill-server']).catch(() => undefined);
  }

  #tmux(args: string[]) {
    return execa('tmux', ['-L', this.socket, '-f', '/dev/null', ...args]);
  }
}

function quote(value: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
