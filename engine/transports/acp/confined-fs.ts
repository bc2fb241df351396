/**
 * ACP's file methods carried out inside the session's sandbox. neo answers fs/read_text_file and
 * fs/write_text_file itself, in its own process; for a confined agent that would make neo the
 * agent's way out — a read of `~/.ssh/id_rsa` or a write into the checkout, at posture full or
 * through a link the agent swaps in between neo's check and its open. So the file operation runs
 * as a tiny command in the same sandbox the agent runs in: the kernel's mounts decide what it
 * reaches, whatever the path says and whenever the agent changes it.
 */
import { sandboxOf } from '../../execution/index.js';
import type { SessionSandbox } from '../types.js';

/** The most a read returns: a text file an agent reads, not a disk image. */
export const READ_MAX_BYTES = 16 * 1024 * 1024;
/** Exit code of the reader when there is no such file (read as empty, as neo answers unconfined). */
const MISSING = 44;

/** Where the operation runs: the session's sandbox, its cwd and environment. */
export interface FsBox {
  sandbox: SessionSandbox;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** The content of `path` as the sandbox sees it; '' when it does not exist. Throws with what failed. */
export async function readInside(box: FsBox, path: string): Promise<string> {
  const child = run(box, ['/bin/sh', '-c', `[ -e "$1" ] || exit ${MISSING}; exec cat -- "$1"`, 'sh', path], false);
  const chunks: Buffer[] = [];
  let size = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= READ_MAX_BYTES) chunks.push(chunk);
  });
  const stderr = collect(child.stderr);
  const result = await child.result;
  if (result.exitCode === MISSING) return '';
  if (result.exitCode !== 0) throw new Error(failure('read', result, await stderr));
  if (size > READ_MAX_BYTES) throw new Error(`the file is larger than ${READ_MAX_BYTES} bytes`);
  return Buffer.concat(chunks).toString('utf8');
}

/** Replaces (or creates) `path` with `content` as the sandbox allows it. Throws with what failed. */
export async function writeInside(box: FsBox, path: string, content: string): Promise<void> {
  // A temp file beside it, renamed over it: a reader never sees half a file.
  const script = 't="$1.neo-write.$$"; cat > "$t" && mv -f -- "$t" "$1" || { rm -f -- "$t"; exit 1; }';
  const child = run(box, ['/bin/sh', '-c', script, 'sh', path], true);
  const stderr = collect(child.stderr);
  child.stdin?.end(content);
  const result = await child.result;
  if (result.exitCode !== 0) throw new Error(failure('write', result, await stderr));
}

function run(box: FsBox, argv: string[], stdin: boolean) {
  return sandboxOf(box.sandbox.kind).spawn(
    argv,
    { ...box.sandbox, cwd: box.cwd, env: box.env, timeoutMs: 60_000 },
    { stdin: stdin ? 'pipe' : 'ignore', output: 'stream', label: 'acp fs' },
  );
}

function collect(stream: NodeJS.ReadableStream | null): Promise<string> {
  if (stream === null) return Promise.resolve('');
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    if (text.length < 4096) text += chunk.toString('utf8');
  });
  return new Promise((resolve) => stream.on('close', () => resolve(text)).on('end', () => resolve(text)));
}

function failure(
  what: string,
  result: { exitCode: number | undefined; spawnError: string | undefined },
  stderr: string,
): string {
  const said = stderr
    .trim()
    .split('\n')
    .at(-1)
    ?.replace(/^(sh|cat|mv): /, '');
  return (
    result.spawnError ?? `${what} failed in the sandbox${said ? `: ${said}` : ` (exit ${result.exitCode ?? '?'})`}`
  );
}
