import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** `neo memory …`: the repository's memory — the decision store, the code graph and its MCP server. */
export function registerMemoryCommands(program: Command, { lazy }: ProgramContext): void {
  const memory = program
    .command('memory')
    .description("the repository's memory: what was tried and what the gate said, the code graph, an MCP server");
  memory
    .command('decisions')
    .description('what was tried on this repository and what neo saw of it (gate refusals, accepted steps, rejections)')
    .option('--file <path>', 'only decisions that touched this file (or a file under this folder)')
    .option('--symbol <name>', 'only decisions whose change or brief names this symbol')
    .option('--search <text>', 'only decisions whose text holds every word of this')
    .option('--run <runId>', "only this run's decisions")
    .option('--limit <n>', 'at most this many (default 50)')
    .option('--json', 'print them as JSON')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryDecisions)));
  memory
    .command('mcp')
    .description(
      "serve the repository's memory over MCP on stdio (search_decisions, record_decision, the code graph's tools) for any agent",
    )
    .option(
      '--posture <posture>',
      'the posture of the session it serves: under plan, record_decision is refused',
      'default',
    )
    .option('--repo <dir>', 'the repository (default: the current folder)')
    .action(lazy(() => import('./memory-commands.js').then((m) => m.memoryMcp)));
}
