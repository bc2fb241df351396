import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAKE_CLI_DIR, fakeWithEnv } from '../contract/fake-backends.js';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';

const CAPTURES = join(FAKE_CLI_DIR, '..', 'cli-captures');
const REPLAY = join(FAKE_CLI_DIR, 'replay-cli.mjs');

const REVIEW = `name: review
workspace: { isolation: inplace }
defaults: { maxPosture: acceptEdits }
steps:
  - { id: review, backend: copilot, posture: acceptEdits, requireChange: false, brief: Review the change. }
`;

describe('neo flow run: a provider error is an error', () => {
  it('a review step whose backend (Copilot) reports a rejected key as agent text fails with TRANSPORT_UNAUTHENTICATED, its retries shown as they happen', async () => {
    const root = await tempDir('neo-e2e-provider-');
    const dir = join(root, 'p');
    await writeTree(dir, { 'plan.yaml': REVIEW });
    // The real Copilot CLI 1.0.102 against a model server answering 401, replayed.
    const result = await runNeo(['flow', 'run', 'plan.yaml'], {
      cwd: dir,
      env: {
        NEO_HOME: join(root, 'home'),
        NEO_COPILOT_BIN: fakeWithEnv(REPLAY, { REPLAY_CAPTURE: join(CAPTURES, 'copilot', 'unauthorized.jsonl') }, root),
      },
    });
    // Exit 5: the agent's provider failed.
    expect(result.exitCode).toBe(5);
    const lines = result.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('step review: '))).toEqual([
      'step review: copilot is retrying the model request: Request failed due to a transient API error. Retrying...',
      'step review: copilot is retrying the model request: Request failed due to a transient API error. Retrying...',
    ]);
    expect(result.stdout).toMatch(
      /step review failed · .*TRANSPORT_UNAUTHENTICATED: the agent failed: copilot: it is not authenticated with its model provider: Authentication failed with provider at \S+ \(HTTP 401\)/,
    );
    expect(result.stdout).not.toMatch(/step review succeeded/);
  });
});

describe('neo session read: the backend’s retries show while the read waits', () => {
  it('prints each retry notice on stderr as it happens, then the typed failure', async () => {
    const root = await tempDir('neo-e2e-provider-');
    const home = join(root, 'home');
    const env = {
      NEO_HOME: home,
      NEO_SESSION_DAEMON_IDLE_MS: '1500',
      // The captured gaps (about 5 s between Copilot's retries), at a third of the speed.
      NEO_COPILOT_BIN: fakeWithEnv(
        REPLAY,
        { REPLAY_CAPTURE: join(CAPTURES, 'copilot', 'unauthorized.jsonl'), REPLAY_PACE: '0.3' },
        root,
      ),
    };
    try {
      const started = await runNeo(
        ['session', 'start', '--backend', 'copilot', '--posture', 'acceptEdits', '--brief', 'review', '--json'],
        { cwd: root, env },
      );
      expect(started.exitCode, started.stderr).toBe(0);
      const id = (JSON.parse(started.stdout) as { sessionId: string }).sessionId;
      const read = await runNeo(['session', 'read', id], { cwd: root, env });
      expect(read.exitCode).toBe(0);
      expect(read.stderr.trim().split('\n')).toEqual([
        'notice: TRANSPORT_MODEL_RETRY: copilot is retrying the model request: Request failed due to a transient API error. Retrying...',
        'notice: TRANSPORT_MODEL_RETRY: copilot is retrying the model request: Request failed due to a transient API error. Retrying...',
      ]);
      expect(read.stdout).toMatch(
        /^error: TRANSPORT_UNAUTHENTICATED: copilot: it is not authenticated with its model provider: Authentication failed/,
      );
    } finally {
      await runNeo(['session', 'daemon', '--stop'], { env: { NEO_HOME: home } });
    }
  });
});

describe('neo persona run: the backend’s retries show as they happen, as in a flow', () => {
  it('each retry notice is a `step <persona>:` line before the typed failure', async () => {
    const root = await tempDir('neo-e2e-provider-');
    const dir = join(root, 'p');
    await writeTree(dir, { 'README.md': 'hello\n' });
    const result = await runNeo(['persona', 'run', '--backend', 'copilot', '--brief', 'Review the readme.'], {
      cwd: dir,
      env: {
        NEO_HOME: join(root, 'home'),
        NEO_COPILOT_BIN: fakeWithEnv(REPLAY, { REPLAY_CAPTURE: join(CAPTURES, 'copilot', 'unauthorized.jsonl') }, root),
      },
    });
    expect(result.exitCode).not.toBe(0);
    const lines = result.stdout.split('\n');
    const retry =
      'step code-specialist: copilot is retrying the model request: Request failed due to a transient API error. Retrying...';
    expect(lines.filter((l) => l.startsWith('step code-specialist: '))).toEqual([retry, retry]);
    expect(lines.indexOf(retry)).toBeLessThan(lines.findIndex((l) => l.startsWith('step code-specialist failed')));
    expect(result.stdout).toMatch(/copilot: it is not authenticated with its model provider/);
  });
});
