import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../../engine/util/errors.js';
import {
  CodeSessionStore,
  connectDaemon,
  DaemonAlreadyRunning,
  daemonPaths,
  mintSessionId,
  startSessionDaemon,
  silentLog,
  type RunningDaemon,
} from '../../../engine/session/index.js';
import { FakeTransport } from '../../fixtures/session/fake-transport.js';
import { tempDir } from '../../helpers/temp.js';

const running: RunningDaemon[] = [];
afterEach(async () => {
  while (running.length > 0) await running.pop()!.close();
});

async function daemon(home: string, idleMs = 60_000) {
  const transport = new FakeTransport('script');
  const d = await startSessionDaemon({ home, log: silentLog, idleMs, service: { transports: async () => transport } });
  running.push(d);
  return { d, transport };
}

describe('session daemon (in process)', () => {
  it('serves ops over its socket and maps errors back to their class and code', async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    const { transport } = await daemon(home);
    const client = (await connectDaemon(home))!;
    const started = (await client.execute({ op: 'start', brief: 'b', backend: 'script' }, 'owner', cwd)) as {
      sessionId: string;
    };
    expect(transport.last.options.cwd).toBe(cwd);
    transport.last.emit({ type: 'turn_complete', text: 'hi' });
    expect(await client.execute({ op: 'read-turn', sessionId: started.sessionId }, 'owner', cwd)).toMatchObject({
      kind: 'turn_complete',
      text: 'hi',
    });
    const error = await client
      .execute({ op: 'set-posture', sessionId: started.sessionId, posture: 'full' }, 'owner', cwd)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({
      code: 'POSTURE_CEILING_EXCEEDED',
      hint: 'the ceiling is fixed at start; ask for `acceptEdits` or less',
    });
    expect((await client.ping()).liveSessions).toEqual([started.sessionId]);
    client.close();
  });

  it('does not lose a notification when a waiting reader hangs up', async () => {
    const home = await tempDir();
    const cwd = await tempDir();
    const { transport } = await daemon(home);
    const first = (await connectDaemon(home))!;
    const { sessionId } = (await first.execute({ op: 'start', brief: 'b', backend: 'script' }, 'owner', cwd)) as {
      sessionId: string;
    };
    const abandoned = first.execute({ op: 'read-turn', sessionId }, 'owner', cwd).catch((e: unknown) => e);
    // Let the daemon register the read before the reader goes away.
    await first.ping();
    first.close();
    expect(await abandoned).toMatchObject({ code: 'SESSION_DAEMON_GONE' });
    transport.last.emit({ type: 'turn_complete', text: 'kept for the next reader' });
    const second = (await connectDaemon(home))!;
    expect(await second.execute({ op: 'read-turn', sessionId }, 'owner', cwd)).toMatchObject({
      kind: 'turn_complete',
      text: 'kept for the next reader',
    });
    second.close();
  });

  it('refuses a second daemon for the same home, replaces a stale socket, exits when idle', async () => {
    const home = await tempDir();
    const paths = daemonPaths(home);
    await writeFile(paths.socket, 'not a socket');
    await writeFile(paths.pid, '999999\n');
    const { d } = await daemon(home, 100);
    await expect(startSessionDaemon({ home, log: silentLog })).rejects.toBeInstanceOf(DaemonAlreadyRunning);
    await d.closed;
    expect(existsSync(paths.socket)).toBe(false);
    expect(existsSync(paths.pid)).toBe(false);
    expect(await connectDaemon(home)).toBeUndefined();
  });

  it('sweeps orphaned records when it boots', async () => {
    const home = await tempDir();
    const store = new CodeSessionStore(home, { log: silentLog });
    const id = mintSessionId();
    const now = new Date().toISOString();
    await store.createRecord({
      sessionId: id,
      backendId: 'script',
      cwd: home,
      maxPosture: 'acceptEdits',
      taskBrief: 'b',
      taskTags: [],
      status: 'running',
      createdAt: now,
      updatedAt: now,
      roundsElapsed: 0,
      runs: [{ startedAt: now, ownerScopeId: 'owner' }],
      version: 1,
    });
    await store.close();
    const { d } = await daemon(home);
    expect((await d.service.store.get(id))!.status).toBe('orphaned');
    const client = (await connectDaemon(home))!;
    expect(await client.execute({ op: 'stop', sessionId: id }, 'owner', home)).toEqual({
      ok: true,
      alreadyStopped: true,
    });
    client.close();
  });
});

describe('session daemon client: stopping', () => {
  it('reports SESSION_DAEMON_STOP_SLOW when the daemon agrees to stop but never hangs up', async () => {
    const home = await tempDir();
    const { createServer } = await import('node:net');
    // A daemon stuck releasing a session: it answers the shutdown request and keeps the line open.
    const stuck = createServer((socket) => {
      socket.on('data', (data) => {
        for (const line of data.toString().split('\n').filter(Boolean)) {
          const request = JSON.parse(line) as { id: number };
          socket.write(`${JSON.stringify({ id: request.id, ok: true, result: { stopping: true } })}\n`);
        }
      });
    });
    await new Promise<void>((resolve) => stuck.listen(daemonPaths(home).socket, resolve));
    try {
      const client = (await connectDaemon(home))!;
      const error = await client.shutdown(200).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'SESSION_DAEMON_STOP_SLOW',
        message: 'the session daemon is still stopping after 0.2s',
        hint: 'see session-daemon.log in NEO_HOME; the daemon exits once its sessions are released',
      });
      client.close();
    } finally {
      stuck.close();
    }
  });
});
