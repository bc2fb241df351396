import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** validate, schema, init, dev, trust. */
export function registerDefinitionCommands(program: Command, { lazy }: ProgramContext): void {
  program
    .command('validate')
    .description('validate definitions: every layer, or the given files and folders')
    .argument('[paths...]', 'files or folders (default: all layers)')
    .option('--json', 'print diagnostics as JSON')
    .option('--no-project', 'leave out the project layer')
    .action(lazy(() => import('./definitions-commands.js').then((m) => m.validate)));

  program
    .command('schema')
    .description('print the JSON Schema of a definition kind (or list the kinds)')
    .argument('[kind]', 'persona, policy, backend, capability, routing, flow, config, …')
    .option('--path', 'print the schema file path instead')
    .option('--json', 'list kinds as JSON')
    .action(lazy(() => import('./definitions-commands.js').then((m) => m.schema)));

  program
    .command('init')
    .description('scaffold <dir>/.neo/ with a persona and a flow that validate')
    .argument(
      '[dir]',
      "the project folder: a package of a monorepo, whose flows work on it (default: the current repository's root)",
    )
    .option('--force', 'overwrite existing files')
    .action(lazy(() => import('../commands/init.js')));

  program
    .command('dev')
    .description('watch every definition layer, hot-reload and re-validate on save')
    .argument('[paths...]', 'extra files or folders to watch')
    .option('--json', 'print one JSON event per line')
    .action(lazy(() => import('./definitions-commands.js').then((m) => m.dev)));

  program
    .command('trust')
    .description(
      "trust a project's privileged definitions as they are now (driver personas, postures above acceptEdits, backends); run it again after they change",
    )
    .argument('[repo]', 'the repository (default: the current one)')
    .option('--revoke', 'stop trusting it')
    .option('--list', 'list trusted repositories')
    .option('--json', 'print JSON')
    .action(lazy(() => import('./definitions-commands.js').then((m) => m.trust)));
}
