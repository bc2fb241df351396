import { join } from 'node:path';
import { readFileSync, existsSync } from 'node:fs';
import { execa, type ResultPromise } from 'execa';
import { parseJsonl } from '../../../engine/util/jsonl.js';
import type { LoggedRequest } from '../../../engine/model-server/index.js';
import { ROOT } from './clis.js';

const NEO_BIN = join(ROOT, 'dist', 'bin', 'neo.js');

/** `neo model serve` running as a child process, as a user would run it in CI. */
export interface ServedModel {
  url: string;
  /** The requests logged so far (read from the --log JSONL file). */
  requests(): LoggedRequest[];
  /** Model requests that took or looked for a turn. */
  mainRequests(): LoggedRequest[];
  /** Stops it with SIGINT; resolves with its exit code and stderr. */
  stop(): Promise<{ exitCode: number | undefined; stderr: string }>;
}

/** Starts `neo model serve --script <script> --json --log <dir>/requests.jsonl`. */
export async function serveModel(script: string, dir: string, vars: Record<string, string> = {}): Promise<ServedModel> {
  const log = join(dir, 'requests.jsonl');
  const args = [
    'model',
    'serve',
    '--script',
    script,
    '--json',
    '--log',
    log,
    ...Object.entries(vars).flatMap(([k, v]) => ['--var', `${k}=${v}`]),
  ];
  const child: ResultPromise = execa(process.execPath, [NEO_BIN, ...args], {
    env: { NO_COLOR: '1', NEO_HOME: join(dir, 'neo-home') },
    reject: false,
    buffer: { stdout: false, stderr: true },
  });
  const first = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    void child.then((result) =>
      reject(new Error(`neo model serve exited (${result.exitCode}):\n${String(result.stderr)}`)),
    );
  });
  const { url } = JSON.parse(first) as { url: string };
  const requests = () => (existsSync(log) ? parseJsonl<LoggedRequest>(readFileSync(log, 'utf8')).records : []);
  return {
    url,
    requests,
    mainRequests: () => requests().filter((r) => r.role === 'main'),
    async stop() {
      child.kill('SIGINT');
      const result = await child;
      return { exitCode: result.exitCode, stderr: String(result.stderr) };
    },
  };
}
