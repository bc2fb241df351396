import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** `neo serve`: the control plane (HTTP API, live feeds, web UI, /metrics). */
export function registerServeCommands(program: Command, { lazy }: ProgramContext): void {
  program
    .command('serve')
    .description(
      'the control plane: watch, steer and resume every session and flow from a browser (prints one URL to open)',
    )
    .option('--port <port>', 'port to listen on (0 picks a free one)', '7400')
    .option('--host <host>', 'address to bind; anything but loopback needs --allow-remote', '127.0.0.1')
    .option(
      '--allow-remote',
      'allow a non-loopback --host (anyone who can reach it and has the token drives your agents)',
    )
    .option('--json', 'print the URL as one JSON line')
    .option(
      '--database-url <url>',
      "the dbos engine's PostgreSQL, whose runs are shown too (default: NEO_DATABASE_URL, else `neo db up`'s; none: local runs only)",
    )
    .option('--supervise', "with a database: recover dead dbos workers' runs (as `neo worker` does)")
    .action(lazy(() => import('./serve-commands.js').then((m) => m.serve)));
}
