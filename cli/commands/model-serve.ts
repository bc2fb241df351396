import { resolve } from 'node:path';
import { formatDiagnostics, summarizeDiagnostics } from '../../engine/definitions/index.js';
import { describeRequest, loadModelScript, startModelServer } from '../../engine/model-server/index.js';
import { errorMessage, FailureError, UsageError } from '../../engine/util/errors.js';
import { EXIT } from '../exit-codes.js';
import { useColor, writeLine, type CommandIO } from '../io.js';

interface ServeOptions {
  script: string;
  port: string;
  host: string;
  log?: string;
  var: string[];
  json?: boolean;
  quiet?: boolean;
}

/**
 * `neo model serve --script file.yaml`: validates the script, listens on loopback, prints
 * `listening <url>` (or a JSON line) on stdout and one line per request on stderr, and serves
 * until SIGINT or SIGTERM, then exits 130.
 */
export async function run(io: CommandIO, options: ServeOptions): Promise<number> {
  const port = parsePort(options.port);
  const vars = parseVars(options.var);
  const { script, diagnostics } = await loadModelScript(resolve(io.cwd, options.script));
  if (diagnostics.length > 0)
    writeLine(io.stderr, `${formatDiagnostics(diagnostics, { color: useColor(io.stderr, io.env), cwd: io.cwd })}\n`);
  if (script === undefined) {
    writeLine(io.stderr, `neo model serve: the script has problems (${summarizeDiagnostics(diagnostics)})`);
    return EXIT.usage;
  }
  let server;
  try {
    server = await startModelServer({
      script,
      port,
      host: options.host,
      vars,
      ...(options.log === undefined ? {} : { log: resolve(io.cwd, options.log) }),
      ...(options.quiet ? {} : { onRequest: (entry) => writeLine(io.stderr, describeRequest(entry)) }),
    });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EADDRINUSE')
      throw new FailureError('MODEL_PORT_IN_USE', `port ${port} is already in use`, {
        hint: 'pick another --port, or --port 0 for a free one',
      });
    if (error instanceof UsageError) throw error;
    throw new FailureError('MODEL_SERVER_START', `cannot start the model server: ${errorMessage(error)}`);
  }
  if (options.json) writeLine(io.stdout, JSON.stringify({ url: server.url, port: server.port }));
  else writeLine(io.stdout, `listening ${server.url}`);
  const signal = await new Promise<NodeJS.Signals>((done) => {
    process.once('SIGINT', () => done('SIGINT'));
    process.once('SIGTERM', () => done('SIGTERM'));
  });
  await server.close();
  if (!options.quiet)
    writeLine(
      io.stderr,
      `neo model serve: ${signal}, stopped after ${server.requests.length} request${server.requests.length === 1 ? '' : 's'}`,
    );
  return EXIT.interrupted;
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^[0-9]+$/.test(text) || port > 65535)
    throw new UsageError('MODEL_BAD_PORT', `--port must be a number from 0 to 65535; got ${JSON.stringify(text)}`, {
      hint: '0 picks a free port',
    });
  return port;
}

function parseVars(pairs: readonly string[]): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0)
      throw new UsageError('MODEL_BAD_VAR', `--var must be name=value; got ${JSON.stringify(pair)}`, {
        hint: 'e.g. --var cwd=/work/repo',
      });
    vars[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return vars;
}
