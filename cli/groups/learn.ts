import type { Command } from 'commander';
import type { ProgramContext } from '../program-context.js';

/** `neo learn …`: the lessons the learning loop distils from recorded outcomes. */
export function registerLearnCommands(program: Command, { lazy, topLevelOnly }: ProgramContext): void {
  const learn = program
    .command('learn')
    .description('the learning loop: distil lessons from recorded session outcomes, list and forget them');
  if (topLevelOnly) return;
  learn
    .command('distill')
    .description(
      "one distiller pass: decay, read outcomes since the cursor, ask neo's own agent (cheap model class), upsert, evict, cap, persist",
    )
    .option('--since <when>', 'read outcomes from this date or duration back (7d, 12h) instead of the cursor')
    .option('--dry-run', 'compute the pass and print the lessons, write nothing')
    .option('--json', 'print the pass report as JSON')
    .action(lazy(() => import('./learn-commands.js').then((m) => m.learnDistill)));
  learn
    .command('lessons')
    .description('list the lessons with confidence, evidence and scope')
    .option('--json', 'print them as JSON')
    .action(lazy(() => import('./learn-commands.js').then((m) => m.learnLessons)));
  learn
    .command('forget')
    .description('remove one lesson')
    .argument('<id>', 'the lesson id (see `neo learn lessons`)')
    .action(lazy(() => import('./learn-commands.js').then((m) => m.learnForget)));
}
