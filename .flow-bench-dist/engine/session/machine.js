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
 * `watch.lastAt` and the idle timer re-arms itself from it, so a chatty agent costs no
 * transitions. Only a session that is not `running` is told about activity.
 */
import { assign, setup } from 'xstate';
import { postureWithin } from '../definitions/index.js';
export const sessionMachine = setup({
    types: {
        context: {},
        events: {},
        input: {},
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
        withinCeiling: ({ context, event }) => event.type === 'op.set_posture' && postureWithin(event.posture, context.maxPosture),
        roundCapReached: ({ context }) => context.roundsElapsed + 1 >= context.maxRounds,
        idleElapsed: ({ context }) => context.watch.now() - context.watch.lastAt >= context.idleTimeoutMs,
        answersLast: ({ context, event }) => event.type === 'op.answer' && context.pending.length === 1 && context.pending[0] === event.clarificationId,
    },
    delays: {
        idleTimeout: ({ context }) => Math.max(0, context.watch.lastAt + context.idleTimeoutMs - context.watch.now()),
    },
}).createMachine({
    id: 'codeSession',
    initial: 'live',
    context: ({ input }) => ({ ...input, pending: [], costUsd: undefined, endedOk: undefined, error: undefined, finalStatus: undefined }),
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
                        costUsd: ({ context, event }) => (event.costUsd === undefined ? context.costUsd : (context.costUsd ?? 0) + event.costUsd),
                    }),
                },
                'agent.error': { target: 'failed', actions: assign({ error: ({ event }) => event.message, finalStatus: 'failed' }) },
                'op.set_posture': { guard: 'withinCeiling', actions: assign({ posture: ({ event }) => event.posture }) },
                'op.release': { target: 'released', actions: assign({ finalStatus: 'ended' }) },
            },
            states: {
                starting: {
                    after: { idleTimeout: [{ guard: 'idleElapsed', target: 'stalled' }, { target: 'starting', reenter: true }] },
                    on: { 'agent.activity': 'running' },
                },
                running: {
                    // The timer fires after the time left since the last activity; not idle yet → re-arm.
                    after: { idleTimeout: [{ guard: 'idleElapsed', target: 'stalled' }, { target: 'running', reenter: true }] },
                    on: { 'op.interrupt': { actions: assign({ pending: [] }) } },
                },
                awaitingAnswer: {
                    on: {
                        'op.answer': [
                            { guard: 'answersLast', target: 'running', actions: assign({ pending: [] }) },
                            { actions: assign({ pending: ({ context, event }) => context.pending.filter((id) => id !== event.clarificationId) }) },
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
/** The flat state name of a snapshot (`live.running` → `running`). */
export function stateName(snapshot) {
    const value = snapshot.value;
    if (typeof value === 'string')
        return value;
    return value.live;
}
/** Whether the agent can still take guidance, answers and posture changes. */
export function isLiveState(state) {
    return state === 'starting' || state === 'running' || state === 'awaitingAnswer' || state === 'turnComplete' || state === 'stalled';
}
/** The store status of a state. */
export function statusOf(state, context) {
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
