/**
 * Resume: a neo session's external id is the code-session id of the run that wrote the
 * transcript, and the transcript sits in that run's store folder. A resume (adopt or a new run)
 * reloads it from `<code-sessions>/<external id>/`, and the new run keeps writing its own.
 */
import { basename, dirname, join } from 'node:path';
import { AgentError, loadTranscript, type SavedTranscript } from '../../agent/index.js';

export async function loadResumedTranscript(
  resumeId: string,
  sessionDir: string | undefined,
): Promise<SavedTranscript> {
  if (!/^[A-Za-z0-9_-]+$/.test(resumeId))
    throw new AgentError('AGENT_RESUME_NOT_FOUND', `"${resumeId}" is not a neo session id`);
  if (sessionDir === undefined) {
    throw new AgentError(
      'AGENT_RESUME_NOT_FOUND',
      `cannot resume ${resumeId}: this session has no store folder to find the transcript in`,
    );
  }
  const dir = basename(sessionDir) === resumeId ? sessionDir : join(dirname(sessionDir), resumeId);
  const saved = await loadTranscript(dir);
  if (saved === null) {
    throw new AgentError('AGENT_RESUME_NOT_FOUND', `no neo agent transcript for session ${resumeId}`, {
      hint: `expected ${join(dir, 'agent-transcript.json')}`,
    });
  }
  return saved;
}
