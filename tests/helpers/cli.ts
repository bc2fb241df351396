import { execa } from 'execa';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { watchFolder } from './leaks.js';

/** The built `neo` binary: the bundle users run (`npm run build` writes it). */
export const NEO_BIN = join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'bin', 'neo.js');

/** Runs the built `neo` binary; never throws on a non-zero exit. */
export async function runNeo(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeout?: number } = {},
) {
  watchFolder(options.env?.NEO_HOME);
  const result = await execa(process.execPath, [NEO_BIN, ...args], {
    cwd: options.cwd,
    env: { NO_COLOR: '1', ...options.env },
    reject: false,
    input: options.input,
    timeout: options.timeout ?? 60_000,
  });
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr };
}
