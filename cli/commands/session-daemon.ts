import { connectDaemon, runSessionDaemon } from '../../engine/session/index.js';
import { neoHome } from '../../engine/util/neo-home.js';
import { EXIT } from '../exit-codes.js';
import { writeJson, writeLine, type CommandIO } from '../io.js';

/** The hidden `neo session daemon`: run it, or (--stop / --status) talk to the running one. */
export async function run(io: CommandIO, options: { stop?: boolean; status?: boolean }): Promise<number> {
  const home = neoHome(io.env);
  if (options.stop || options.status) {
    const client = await connectDaemon(home);
    if (client === undefined) {
      writeLine(io.stderr, 'no session daemon is running');
      return options.stop ? EXIT.ok : EXIT.failed;
    }
    try {
      if (options.status) writeJson(io.stdout, await client.ping());
      if (options.stop) await client.shutdown();
    } finally {
      client.close();
    }
    return EXIT.ok;
  }
  const { trackRecords, releaseRecorder } = await import('../../engine/learning/index.js');
  const records = trackRecords(home);
  return runSessionDaemon({
    home,
    env: io.env,
    stdout: io.stdout,
    stderr: io.stderr,
    service: {
      trackRecord: (backend) => records.lines(backend),
      // A person's session has no judge: its outcome is inferred from what happened.
      onReleased: releaseRecorder({ home, verdict: 'person' }),
    },
  });
}
