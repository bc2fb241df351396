import { describe, expect, it } from 'vitest';
import { kinds, lastOf } from '../../contract/event-reader.js';
import type { FakeProtocol } from '../../contract/fake-backends.js';
import { fakeRun } from './harness.js';

/** Per protocol: how many retry notices the CLI's own retry produces before a model error fails the turn. */
const CASES: Array<{ protocol: FakeProtocol; retries: number; crash: string }> = [
  { protocol: 'claude-code', retries: 2, crash: 'fake-claude: simulated crash mid-turn' },
  { protocol: 'codex', retries: 2, crash: 'thread panicked: simulated crash mid-turn' },
  { protocol: 'acp', retries: 0, crash: 'fake-acp: simulated crash mid-turn' },
];

const QUICK = { idleTimeoutMs: 20_000, startTimeoutMs: 20_000, killGraceMs: 1_000 };

describe.each(CASES)('faults: $protocol', ({ protocol, retries, crash }) => {
  it('a CLI that exits mid-turn gives one fatal TRANSPORT_EXITED error with its stderr tail, and leaves no process', async () => {
    const run = await fakeRun(protocol, 'exit-mid-turn,grandchild');
    const { session, reader } = await run.start();
    const events = await reader.rest();
    expect(kinds(events)).toEqual(['started', 'reasoning', 'text', 'error:TRANSPORT_EXITED']);
    const error = lastOf(events, 'error');
    expect(error.fatal).toBe(true);
    expect(error.message).toMatch(/exited mid-turn \(exit code 3\)$/);
    expect(error.stderrTail).toContain(crash);
    await session.stop();
    expect(run.survivors()).toEqual([]);
    await expect(session.sendGuidance('again')).rejects.toMatchObject({ code: 'TRANSPORT_SESSION_CLOSED' });
  });

  it('a malformed line is skipped with a notice and the turn goes on', async () => {
    const run = await fakeRun(protocol, 'malformed');
    const { session, reader } = await run.start();
    try {
      const events = await reader.untilType('clarify');
      expect(kinds(events)).toEqual([
        'started',
        'reasoning',
        'text',
        'error:TRANSPORT_MALFORMED_LINE',
        'tool_use',
        'clarify',
      ]);
      const notice = events.find((e) => e.type === 'error');
      expect(notice).toMatchObject({ transient: true, message: expect.stringContaining('this is not json {') });
      await session.answer(lastOf(events, 'clarify').clarificationId, { allow: true });
      expect(kinds(await reader.untilType('turn_complete'))).toEqual(['tool_result', 'text', 'turn_complete']);
    } finally {
      await session.stop();
    }
  });

  it('unknown event kinds are ignored: the turn is exactly the normal one', async () => {
    const run = await fakeRun(protocol, 'unknown-event');
    const { session, reader } = await run.start();
    try {
      const events = await reader.untilType('clarify');
      expect(kinds(events)).toEqual(['started', 'reasoning', 'text', 'tool_use', 'clarify']);
    } finally {
      await session.stop();
    }
  });

  it('a CLI that goes silent mid-turn is stopped after the idle timeout with TRANSPORT_IDLE_TIMEOUT', async () => {
    const run = await fakeRun(protocol, 'hang,grandchild');
    const { session, reader } = await run.start({ options: { ...QUICK, idleTimeoutMs: 400 } });
    const events = await reader.rest();
    const error = lastOf(events, 'error');
    expect(error).toMatchObject({ code: 'TRANSPORT_IDLE_TIMEOUT', fatal: true });
    expect(error.message).toContain('sent nothing for 0.4s during a turn');
    await session.stop();
    expect(run.survivors()).toEqual([]);
  });

  it('a CLI that never answers the handshake fails the start with TRANSPORT_START_FAILED and is killed', async () => {
    const run = await fakeRun(protocol, 'mute,grandchild');
    await expect(run.start({ options: { ...QUICK, startTimeoutMs: 500 } })).rejects.toMatchObject({
      code: 'TRANSPORT_START_FAILED',
      message: expect.stringContaining('did not finish its startup handshake within 0.5s'),
    });
    expect(run.survivors()).toEqual([]);
  });

  it('a CLI that dies at startup fails the start with its stderr', async () => {
    const run = await fakeRun(protocol, 'exit-at-start');
    const failure = run.start({ options: QUICK });
    await expect(failure).rejects.toMatchObject({ code: 'TRANSPORT_START_FAILED' });
    await expect(failure).rejects.toThrow(/exited during startup \(exit code [12]\)[\s\S]*stderr:/);
  });

  it('HTTP 500 from the model: the CLI retries (notices), then the turn fails; the session takes another turn', async () => {
    const run = await fakeRun(protocol, 'model-500');
    const { session, reader } = await run.start();
    try {
      const events = await reader.until((e) => e.type === 'error' && e.transient !== true);
      expect(kinds(events)).toEqual([
        'started',
        ...Array<string>(retries).fill('error:TRANSPORT_MODEL_RETRY'),
        'error:TRANSPORT_PROVIDER_ERROR',
      ]);
      const failed = lastOf(events, 'error');
      expect(failed.fatal).toBeUndefined();
      expect(failed.message).toContain('500');
      await session.sendGuidance('Try again.');
      expect(kinds(await reader.untilType('turn_complete'))).toEqual(['text', 'turn_complete']);
    } finally {
      await session.stop();
    }
  });

  it('HTTP 429 that outlasts the retries fails the turn with TRANSPORT_RATE_LIMITED', async () => {
    const run = await fakeRun(protocol, 'model-429');
    const { session, reader } = await run.start();
    try {
      const events = await reader.until((e) => e.type === 'error' && e.transient !== true);
      expect(lastOf(events, 'error')).toMatchObject({
        code: 'TRANSPORT_RATE_LIMITED',
        message: expect.stringContaining('429'),
      });
    } finally {
      await session.stop();
    }
  });

  it('a missing binary is one TRANSPORT_BINARY_MISSING error naming the install command and the override', async () => {
    const run = await fakeRun(protocol);
    const options = run.options();
    const env = { ...options.env };
    for (const key of Object.keys(env)) if (key.endsWith('_BIN')) delete env[key];
    env.PATH = run.home;
    const failure = run.start({ env });
    await expect(failure).rejects.toMatchObject({
      code: 'TRANSPORT_BINARY_MISSING',
      hint: expect.stringMatching(
        /^install it with `npm install -g [^`]+`, or point NEO_[A-Z_]+_BIN at the executable$/,
      ),
    });
  });
});
