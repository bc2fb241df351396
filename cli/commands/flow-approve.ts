import { approveRun } from '../../engine/flow/index.js';
import { checkId, checkIdOrPrefix } from '../../engine/util/ids.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { painter, useColor, writeJson, writeLine, type CommandIO } from '../io.js';
import { defined } from '../../engine/util/defined.js';

export async function run(
  io: CommandIO,
  runId: string,
  step: string,
  options: { decision: string; note?: string; json?: boolean; engine?: string; databaseUrl?: string },
): Promise<number> {
  checkIdOrPrefix('run', runId);
  checkId('approval', step);
  if (options.engine === 'dbos')
    return (await import('../flow/dbos-commands.js')).approveOnDbos(io, runId, step, options);
  // A driving persona's pending question (a human decider, or a rule that asks) is answered the same way.
  const persona = await import('../../engine/persona/index.js');
  if ((await persona.askedQuestion(neoHome(io.env), runId, step)) !== undefined)
    return answerPersonaQuestion(io, runId, step, options, persona.answerQuestion);
  const result = await approveRun({
    home: neoHome(io.env),
    runId,
    step,
    decision: options.decision,
    ...defined({ note: options.note }),
  });
  if (options.json) {
    writeJson(io.stdout, {
      runId: result.record.runId,
      step: result.key,
      decision: options.decision,
      live: result.live,
    });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  writeLine(
    io.stdout,
    `${p.green('✓')} ${result.key} of run ${result.record.runId}: ${options.decision}${options.note ? ` (${options.note})` : ''}`,
  );
  writeLine(
    io.stdout,
    result.live
      ? '  the waiting run picks it up now'
      : `  no process is running it; it takes effect on: neo flow resume ${result.record.runId}`,
  );
  return EXIT.ok;
}

async function answerPersonaQuestion(
  io: CommandIO,
  runId: string,
  key: string,
  options: { decision: string; note?: string; json?: boolean },
  answerQuestion: typeof import('../../engine/persona/index.js').answerQuestion,
): Promise<number> {
  const question = await answerQuestion(neoHome(io.env), runId, key, {
    decision: options.decision,
    ...defined({ note: options.note }),
  });
  if (options.json) {
    writeJson(io.stdout, { runId, step: key, decision: options.decision, question: question.prompt });
    return EXIT.ok;
  }
  const p = painter(useColor(io.stdout, io.env));
  writeLine(
    io.stdout,
    `${p.green('✓')} ${key} of ${runId}: ${options.decision}${options.note ? ` (${options.note})` : ''}`,
  );
  writeLine(io.stdout, `  ${question.prompt}`);
  return EXIT.ok;
}
