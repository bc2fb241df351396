import type { Command } from 'commander';
import type { ProgramContext } from '../program.js';

/** personas, backends, capabilities. */
export function registerCatalogCommands(program: Command, { lazy }: ProgramContext): void {
  const personas = program.command('personas').alias('persona').description('list and inspect personas');
  personas
    .command('list')
    .description('every persona with its layer')
    .option('--json', 'print JSON')
    .action(lazy(() => import('../commands/personas-list.js')));
  personas
    .command('show')
    .description('one persona: its fields, its origin (layer and file), what it overrides')
    .argument('<id>', 'persona id')
    .option('--json', 'print JSON')
    .option('--effective', 'the merged knobs (policy, owner cap) and where each came from')
    .action(lazy(() => import('../commands/personas-show.js')));

  program
    .command('backends')
    .description('backend descriptors')
    .command('list')
    .description('every backend with its capabilities')
    .option('--json', 'print JSON')
    .action(lazy(() => import('../commands/backends-list.js')));

  program
    .command('capabilities')
    .description('the capability catalog')
    .command('list')
    .description('every catalog entry with its trust tier and source')
    .option('--json', 'print JSON')
    .action(lazy(() => import('../commands/capabilities-list.js')));
}
