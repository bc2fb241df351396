import { Option, type Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** `neo db up | down | status` and `neo worker`: running flows on the dbos engine (docs/scale-out.md). */
export function registerScaleCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  const db = program
    .command('db')
    .description('an embedded PostgreSQL for the dbos engine on this machine (for trying it out and tests)');
  program
    .command('worker')
    .description("run flows from the dbos engine's queue until Ctrl-C; recovers dead workers' runs")
    .addOption(new Option('--engine <engine>', 'the engine').choices(['dbos']).default('dbos'))
    .option('--database-url <url>', 'PostgreSQL (default: NEO_DATABASE_URL, else `neo db up`’s)')
    .option('--concurrency <n>', 'runs this worker drives at once', '4')
    .option('--executor-id <id>', "this worker's id in DBOS (default host-pid)")
    .option('--embedded-db', 'start the embedded PostgreSQL first (`neo db up`)')
    .option('--supervise', "recover dead workers' runs (the default)")
    .option('--no-supervise', "do not recover dead workers' runs")
    .action(lazy(() => import('./scale-commands.js').then((m) => m.worker)));
  if (topLevelOnly) return;
  db.command('up')
    .description('start it (creating its cluster the first time) on 127.0.0.1; prints its URL')
    .option('--port <port>', 'TCP port on 127.0.0.1 (default 54329, or the one it had)')
    .option('--data-dir <dir>', 'its data folder (default NEO_HOME/db/data; under root /var/tmp/neo-postgres-<hash>)')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./scale-commands.js').then((m) => m.dbUp)));
  db.command('down')
    .description('stop it (the data stays)')
    .option('--purge', 'also remove its data')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./scale-commands.js').then((m) => m.dbDown)));
  db.command('status')
    .description('whether it runs, where, and its URL')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./scale-commands.js').then((m) => m.dbStatus)));
}
