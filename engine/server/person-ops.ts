/**
 * What a person at the control plane may do to any live session, whoever drives it: guidance
 * (pinned into the round history, so the driver sees it), an answer to a pending clarification,
 * an interrupt, a stop (which also releases a session that ended but is still held). Answers and interrupts go through the op path under the session's own owner
 * scope, so every rule, metric and log line of the op applies. Used for sessions in `neo serve`
 * itself and, over the attach socket, in a flow or persona process.
 */
import type { SessionService, StopOutcome } from '../session/index.js';
import { defined } from '../util/defined.js';

export type PersonCommand =
  | { type: 'guide'; sessionId: string; text: string }
  | { type: 'answer'; sessionId: string; clarificationId: string; allow: boolean; reason?: string; note?: string }
  | { type: 'interrupt'; sessionId: string }
  | { type: 'stop'; sessionId: string; outcome?: StopOutcome; note?: string };

/** The slice of a session service a person's commands need. */
export type PersonPort = Pick<SessionService, 'injectUserGuidance' | 'execute'> & {
  registry: Pick<SessionService['registry'], 'find'>;
};

/** Whether `sessionId` is live in this service. */
export function isLiveIn(service: PersonPort, sessionId: string): boolean {
  return service.registry.find(sessionId) !== undefined;
}

/** Runs a person's command against a session live in `service`; throws the op's own typed errors. */
export async function runPersonCommand(service: PersonPort, command: PersonCommand): Promise<unknown> {
  if (command.type === 'guide') {
    await service.injectUserGuidance(command.sessionId, command.text);
    return { ok: true };
  }
  // A person acts for the owner: the op runs in the owner's scope (unknown ids fail as usual).
  const scope = service.registry.find(command.sessionId)?.ownerScope ?? 'control-plane';
  if (command.type === 'interrupt')
    return service.execute({ op: 'interrupt', sessionId: command.sessionId }, { scope });
  // Stop ends a live session with a verdict, and releases one that already ended but is still held.
  if (command.type === 'stop')
    return service.execute(
      { op: 'stop', sessionId: command.sessionId, ...defined({ outcome: command.outcome, note: command.note }) },
      { scope },
    );
  return service.execute(
    {
      op: 'answer',
      sessionId: command.sessionId,
      clarificationId: command.clarificationId,
      allow: command.allow,
      ...defined({ reason: command.reason, note: command.note }),
    },
    { scope },
  );
}
