import { describe, expect, it } from 'vitest';
import { answerQuestion, pendingQuestion, pendingQuestionAsker, type Question } from '../../../engine/persona/index.js';
import { tempDir } from '../../helpers/temp.js';

const RUN = '20260101-000000-00abcd';

function question(key: string): Question {
  return {
    runId: RUN,
    key,
    prompt: 'Allow Bash?',
    decisions: [
      { id: 'allow', label: 'allow it' },
      { id: 'deny', label: 'deny it' },
    ],
  };
}

/** Resolves once `key` waits for an answer. */
async function asked(home: string, key: string): Promise<void> {
  while ((await pendingQuestion(home, RUN, key)) === undefined) await new Promise((r) => setTimeout(r, 10));
}

describe('persona questions: one answer wins', () => {
  it('two answers at once: one is followed, the other refused naming it; a late one too', async () => {
    const home = await tempDir('neo-questions-');
    const asker = pendingQuestionAsker({ home });
    const answer = asker.ask(question('fix-q1'), new AbortController().signal);
    await asked(home, 'fix-q1');
    const results = await Promise.allSettled([
      answerQuestion(home, RUN, 'fix-q1', { decision: 'allow', by: 'web' }),
      answerQuestion(home, RUN, 'fix-q1', { decision: 'deny', by: 'cli (me)' }),
    ]);
    const got = await answer;
    const lost = results.filter((r) => r.status === 'rejected');
    expect(lost).toHaveLength(1);
    const reason = (lost[0] as PromiseRejectedResult).reason as { code: string; message: string; answer: unknown };
    expect(reason.code).toBe('PERSONA_QUESTION_ANSWERED');
    expect(reason.answer).toEqual(got);
    expect(reason.message).toContain(`${got.decision} by ${got.by}`);

    // After the asker moved on, a late answer is told who answered.
    await expect(answerQuestion(home, RUN, 'fix-q1', { decision: 'deny' })).rejects.toMatchObject({
      code: 'PERSONA_QUESTION_ANSWERED',
      answer: got,
    });
  });

  it('the same key asked again starts with no answer; a question nobody answered is closed, not answerable', async () => {
    const home = await tempDir('neo-questions-');
    const asker = pendingQuestionAsker({ home });
    const first = asker.ask(question('q1'), new AbortController().signal);
    await asked(home, 'q1');
    await answerQuestion(home, RUN, 'q1', { decision: 'deny', by: 'first' });
    expect((await first).decision).toBe('deny');

    const again = asker.ask(question('q1'), new AbortController().signal);
    await asked(home, 'q1');
    await answerQuestion(home, RUN, 'q1', { decision: 'allow', by: 'second' });
    expect(await again).toMatchObject({ decision: 'allow', by: 'second' });

    const stop = new AbortController();
    const stopped = asker.ask(question('q2'), stop.signal);
    await asked(home, 'q2');
    stop.abort();
    await expect(stopped).rejects.toThrow(/no answer to `q2`/);
    await expect(answerQuestion(home, RUN, 'q2', { decision: 'allow' })).rejects.toMatchObject({
      code: 'PERSONA_QUESTION_CLOSED',
    });
  });
});
