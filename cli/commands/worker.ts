import { UsageError } from '../../engine/util/errors.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeLine, type CommandIO } from '../io.js';

interface WorkerFlags {
  databaseUrl?: string;
  concurrency: string;
  executorId?: string;
  embeddedDb?: boolean;
  supervise?: boolean;
}

/** `neo worker`: drives dbos runs until SIGINT or SIGTERM (its runs stay with DBOS for another worker). */
export async function run(io: CommandIO, options: WorkerFlags): Promise<number> {
  const concurrency = Number(options.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256)
    throw new UsageError('CLI_BAD_CONCURRENCY', `--concurrency ${options.concurrency} is not a number from 1 to 256`, {
      hint: 'give how many runs this worker drives at once, e.g. --concurrency 4',
    });
  const home = neoHome(io.env);
  const dbos = await import('../../engine/flow/engines/dbos/index.js');
  if (options.embeddedDb === true) await dbos.dbUp(home);
  const url = dbos.databaseUrl(home, io.env, options.databaseUrl);
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  await dbos.runWorker({
    home,
    url,
    concurrency,
    ...(options.executorId === undefined ? {} : { executorId: options.executorId }),
    supervise: options.supervise !== false,
    log: (line) => writeLine(io.stderr, `[${new Date().toISOString()}] ${line}`),
    signal: controller.signal,
  });
  return EXIT.interrupted;
}
