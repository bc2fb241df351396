import { readLessonsFile, scopeLabel } from '../../engine/learning/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { terminalSafe } from '../../engine/util/terminal-text.js';
import { table, writeJson, writeLine, type CommandIO } from '../io.js';
import { defined } from '../../engine/util/defined.js';

/** `neo learn lessons`: every stored lesson with its confidence, evidence and scope. */
export async function run(io: CommandIO, options: { json?: boolean }): Promise<number> {
  const file = await readLessonsFile(neoHome(io.env));
  const lessons = [...file.lessons].sort((a, b) => b.confidence - a.confidence);
  if (options.json) {
    writeJson(io.stdout, { ...defined({ cursor: file.cursor }), lessons });
    return EXIT.ok;
  }
  if (lessons.length === 0) {
    writeLine(io.stdout, 'no lessons yet (`neo learn distill` distils them from the recorded outcomes)');
    return EXIT.ok;
  }
  const rows = [
    ['ID', 'CONFIDENCE', 'EVIDENCE', 'SCOPE', 'LESSON'],
    ...lessons.map((l) => [l.id, l.confidence.toFixed(2), String(l.evidenceCount), scopeLabel(l.scope), l.text]),
  ];
  // A lesson is distilled from agents' outcomes: data, printed through the terminal sanitiser.
  writeLine(io.stdout, terminalSafe(table(rows)));
  return EXIT.ok;
}
