import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { binaryEnvVar } from '../../../engine/transports/shared/binary.js';
import { tapWrapper } from './asks.js';
import { ROOT } from './clis.js';
import type { Sandbox } from './sandbox.js';

export const CAPTURES = join(ROOT, 'tests', 'fixtures', 'cli-captures');

/** A loopback URL nothing listens on (a port bound, then released). */
export async function unreachableUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

/** Environment that runs the backend's CLI through the wire tap, which logs every line to `log`. */
export function tapped(env: NodeJS.ProcessEnv, backend: string, log: string): NodeJS.ProcessEnv {
  const binVar = binaryEnvVar(backend);
  writeFileSync(log, '');
  return { ...env, [binVar]: tapWrapper(env[binVar]!, log) };
}

/**
 * With NEO_CAPTURE=1, keeps a tapped conversation as the fixture `cli-captures/<cli>/<name>.jsonl`
 * for the replay tests: the run's folders and the model server's address become `{{cwd}}`,
 * `{{home}}`, `{{root}}` and `{{url}}`, and the agent's command palette (which neo ignores) is left out.
 */
export function keepCapture(log: string, cli: string, name: string, box: Sandbox, url: string): void {
  if (process.env.NEO_CAPTURE !== '1') return;
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '' && !line.includes('available_commands_update'))
    .map((line) =>
      line
        .split(box.repo)
        .join('{{cwd}}')
        .split(box.home)
        .join('{{home}}')
        .split(box.root)
        .join('{{root}}')
        .split(url)
        .join('{{url}}'),
    );
  mkdirSync(join(CAPTURES, cli), { recursive: true });
  writeFileSync(join(CAPTURES, cli, `${name}.jsonl`), `${lines.join('\n')}\n`);
}
