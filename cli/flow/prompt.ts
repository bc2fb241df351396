import type { ApprovalPrompter } from '../../engine/flow/index.js';
import { terminalSafeDeep } from '../../engine/util/terminal-text.js';
import { painter, useColor, type CommandIO } from '../io.js';

/**
 * Asks approvals at the terminal, one at a time: the decisions by number or id, an optional note
 * after a colon (`2: not yet`). Resolves undefined when the ask is cancelled (an answer came
 * from `neo flow approve`, or the run stopped).
 */
export function terminalPrompter(io: CommandIO, around: { pause(): void; resume(): void }): ApprovalPrompter {
  let queue: Promise<unknown> = Promise.resolve();
  const p = painter(useColor(io.stdout, io.env));
  return (ask, signal) => {
    const turn = queue.then(async () => {
      if (signal.aborted) return undefined;
      around.pause();
      // readline is loaded only when a person is actually asked.
      const { createInterface } = await import('node:readline/promises');
      const rl = createInterface({ input: process.stdin, output: io.stdout as NodeJS.WritableStream, terminal: true });
      try {
        // The question may quote an agent: what is shown passes the terminal sanitiser.
        const shown = terminalSafeDeep({ step: ask.step, prompt: ask.prompt, decisions: ask.decisions });
        io.stdout.write(`\n${p.yellow('?')} ${p.bold(shown.step)} ${shown.prompt}\n`);
        shown.decisions.forEach((d, i) =>
          io.stdout.write(
            `  ${i + 1}) ${d.id}${d.label !== d.id ? ` — ${d.label}` : ''}${d.fail ? p.dim(' (fails the step)') : ''}\n`,
          ),
        );
        for (;;) {
          const raw = (
            await rl.question(`choose 1-${ask.decisions.length} or a decision id (add ': note'): `, { signal })
          ).trim();
          const [choice = '', ...rest] = raw.split(':');
          const index = Number(choice.trim());
          const decision =
            Number.isInteger(index) && index >= 1 && index <= ask.decisions.length
              ? ask.decisions[index - 1]
              : ask.decisions.find((d) => d.id === choice.trim());
          if (decision === undefined) continue;
          const note = rest.join(':').trim();
          return { decision: decision.id, ...(note === '' ? {} : { note }) };
        }
      } catch {
        return undefined;
      } finally {
        rl.close();
        around.resume();
      }
    });
    queue = turn.catch(() => undefined);
    return turn;
  };
}
