import { forgetLesson } from '../../engine/learning/index.js';
import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';

/** `neo learn forget <id>`: removes one lesson. */
export async function run(io: CommandIO, id: string): Promise<number> {
  if (!(await forgetLesson(neoHome(io.env), id)))
    throw new UsageError('CLI_LESSON_UNKNOWN', `no lesson \`${id}\``, { hint: 'see `neo learn lessons` for the ids' });
  writeLine(io.stdout, `forgot ${id}`);
  return EXIT.ok;
}
