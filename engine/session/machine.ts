/**
 * The lifecycle statechart of one code session. It is the only place a session's status changes:
 * agent notifications and ops arrive as events, guards enforce the posture ceiling and the round
 * cap. Pure: no I/O; the registry turns state changes into store writes.
 *
 *   live ─┬ starting ──activity──▶ running ◀──answer── awaitingAnswer
 *         │  running ──turn_complete──▶ turnComplete ──guide──▶ running
 *         │  running ──(idle timeout)──▶ stalled ──activity──▶ running
 *         └ ended | failed | maxRounds ──release──▶ released (final)
 *
 * Activity events (text, tool calls) are deliberately NOT sent per event: the session updates
 * `watch.lastAt`, so a chatty agent costs no transitions. Only a session that is not `running`
 * is told about activity. The idle timeout is one timer outside the machine (IdleTimer) that
 * sends `agent.idle`; the `idleElapsed` guard here decides whether that is a stall, so a turn
 * costs no timer scheduling inside the machine.
 */
import { assign, setup, type SnapshotFrom } from 'xstate';
import type { Posture } from '../definitions/index.js';
import { underCeiling } from '../posture/index.js';

/** Why a session was released (a metric label). */
export type ReleaseReason = 'explicit' | 'sweep' | 'lifetime';

/** The store's status vocabulary (seed 004 §4). */
export type SessionStatus = 'running' | 'idle' | 'ended' | 'failed' | 'orphaned';

/** Shared, mutable activity clock: the session bumps `lastAt`, the idle timer reads it. */
export interface ActivityWatch {
  lastAt: number;
  now(): number;
}

export interface SessionMachineInput {
  posture: Posture;
  maxPosture: Posture;
  maxRounds: number;
  /** Rounds already spent (an adopted record continues its budget). */
  roundsElapsed: number;
  idleTimeoutMs: number;
  watch: ActivityWatch;
}

export interface SessionMachineContext extends SessionMachineInput {
  /** Clarification ids the agent is blocked on, oldest first. */
  pending: string[];
  costUsd: number | undefined;
  endedOk: boolean | undefined;
  error: string | undefined;
  /** The status to record once released. */
  finalStatus: SessionStatus | undefined;
}

export type SessionMachineEvent =
  | { type: 'agent.activity' }
  | { type: 'agent.idle' }
  | { type: 'agent.clarify'; clarificationId: string }
  | { type: 'agent.turn_complete'; costUsd?: number }
  | { type: 'agent.ended'; ok: boolean; costUsd?: number }
  | { type: 'agent.error'; message: string }
  | { type: 'op.answer'; clarificationId: string }
  | { type: 'op.guide' }
  | { type: 'op.set_posture'; posture: Posture }
  | { type: 'op.interrupt' }
  | { type: 'op.release'; reason: ReleaseReason };

export const sessionMachine = setup({
  types: {
    context: {} as SessionMachineContext,
    events: {} as SessionMachineEvent,
    input: {} as SessionMachineInput,
  },
  actions: {
    countRound: assign(({ context, event }) => {
      const cost = event.type === 'agent.turn_complete' ? event.costUsd : undefined;
      return {
        roundsElapsed: context.roundsElapsed + 1,
        pending: [],
        costUsd: cost === undefined ? context.costUsd : (context.costUsd ?? 0) + cost,
      };
    }),
  },
  guards: {
    withinCeiling: ({ context, event }) =>
      event.type === 'op.set_posture' &&
      underCeiling('posture', event.posture, { posture: context.maxPosture, name: 'the ceiling' }).ok,
    roundCapReached: ({ context }) => context.roundsElapsed + 1 >= context.maxRounds,
    idleElapsed: ({ context }) => context.watch.now() - context.watch.lastAt >= context.idleTimeoutMs,
    answersLast: ({ context, event }) =>
      event.type === 'op.answer' && context.pending.length === 1 && context.pending[0] === event.clarificationId,
  },
}).createMachine({
  id: 'codeSession',
  initial: 'live',
  context: ({ input }) => ({
    ...input,
    pending: [],
    costUsd: undefined,
    endedOk: undefined,
    error: undefined,
    finalStatus: undefined,
  }),
  states: {
    live: {
      initial: 'starting',
      on: {
        'agent.clarify': {
          target: '.awaitingAnswer',
          actions: assign({ pending: ({ context, event }) => [...context.pending, event.clarificationId] }),
        },
        'agent.turn_complete': [
          { guard: 'roundCapReached', target: 'maxRounds', actions: 'countRound' },
          { target: '.turnComplete', actions: 'countRound' },
        ],
        'agent.ended': {
          target: 'ended',
          actions: assign({
            endedOk: ({ event }) => event.ok,
            finalStatus: ({ event }) => (event.ok ? 'ended' : 'failed'),
            // The closing turn's cost, when the agent ended the session at a turn's end.
            costUsd: ({ context, event }) =>
              event.costUsd === undefined ? context.costUsd : (context.costUsd ?? 0) + event.costUsd,
          }),
        },
        'agent.error': {
          target: 'failed',
          actions: assign({ error: ({ event }) => event.message, finalStatus: 'failed' }),
        },
        'op.set_posture': { guard: 'withinCeiling', actions: assign({ posture: ({ event }) => event.posture }) },
        'op.release': { target: 'released', actions: assign({ finalStatus: 'ended' }) },
      },
      states: {
        starting: {
          on: { 'agent.activity': 'running', 'agent.idle': { guard: 'idleElapsed', target: 'stalled' } },
        },
        running: {
          on: {
            'op.interrupt': { actions: assign({ pending: [] }) },
            'agent.idle': { guard: 'idleElapsed', target: 'stalled' },
          },
        },
        awaitingAnswer: {
          on: {
            'op.answer': [
              { guard: 'answersLast', target: 'running', actions: assign({ pending: [] }) },
              {
                actions: assign({
                  pending: ({ context, event }) => context.pending.filter((id) => id !== event.clarificationId),
                }),
              },
            ],
            'op.interrupt': { target: 'running', actions: assign({ pending: [] }) },
          },
        },
        turnComplete: {
          on: { 'op.guide': 'running', 'agent.activity': 'running' },
        },
        stalled: {
          on: { 'agent.activity': 'running' },
        },
      },
    },
    ended: { on: { 'op.release': 'released' } },
    failed: { on: { 'op.release': 'released' } },
    maxRounds: { entry: assign({ finalStatus: 'ended' }), on: { 'op.release': 'released' } },
    released: { type: 'final' },
  },
});

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

/** The flat state names a reader sees. */
export type SessionStateName =
  | 'starting'
  | 'running'
  | 'awaitingAnswer'
  | 'turnComplete'
  | 'stalled'
  | 'ended'
  | 'failed'
  | 'maxRounds'
  | 'released';

/** The flat state name of a snapshot (`live.running` → `running`). */
export function stateName(snapshot: SessionSnapshot): SessionStateName {
  const value = snapshot.value;
  if (typeof value === 'string') return value as SessionStateName;
  return (value as { live: SessionStateName }).live;
}

/** Whether the agent can still take guidance, answers and posture changes. */
export function isLiveState(state: SessionStateName): boolean {
  return (
    state === 'starting' ||
    state === 'running' ||
    state === 'awaitingAnswer' ||
    state === 'turnComplete' ||
    state === 'stalled'
  );
}

/** The store status of a state. */
export function statusOf(state: SessionStateName, context: SessionMachineContext): SessionStatus {
  switch (state) {
    case 'starting':
    case 'running':
    case 'stalled':
      return 'running';
    case 'awaitingAnswer':
    case 'turnComplete':
      return 'idle';
    case 'ended':
    case 'failed':
    case 'maxRounds':
    case 'released':
      return context.finalStatus ?? 'ended';
  }
}
