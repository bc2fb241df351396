import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `neo model serve` and `neo model check`: the scripted model server and its scripts. */
export function registerModelCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  const model = program
    .command('model')
    .description('a scripted model server for testing flows and personas against real coding CLIs');
  if (topLevelOnly) return;
  model
    .command('serve')
    .description(
      'serve a model script on 127.0.0.1 (Anthropic Messages, OpenAI Responses and Chat Completions, Gemini) until Ctrl-C',
    )
    .requiredOption('--script <file>', 'the model script (YAML or JSON)')
    .option('--port <port>', 'port to listen on (0 picks a free one)', '0')
    .option('--host <host>', 'loopback address to bind (127.0.0.1, ::1 or localhost)', '127.0.0.1')
    .option('--log <file>', 'append every request (secrets redacted) to this JSONL file')
    .option('--var <name=value>', 'a value for {{name}} in replies (repeatable)', collect, [])
    .option('--json', 'print the address as one JSON line')
    .option('--quiet', 'no per-request lines on stderr')
    .action(lazy(() => import('./model-commands.js').then((m) => m.modelServe)));
  model
    .command('check')
    .description('validate a model script and print its diagnostics')
    .argument('<file>', 'the model script')
    .option('--json', 'print the diagnostics as JSON')
    .action(lazy(() => import('./model-commands.js').then((m) => m.modelCheck)));
}
