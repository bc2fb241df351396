/**
 * The persona flow statechart: how a driver persona operates one code session.
 *
 *   listBackends → select → start → read ─┬ clarification → decide → answer → read
 *                    ▲        │            ├ turn_complete → judge ─┬ guide → read
 *                    └─rejected┘            │                       └ stop → settled
 *                                          └ ended | error | max_rounds → verify → stop → settled
 *
 * The machine owns the order of ops and the rules no decider may bend: a rejected start goes
 * back to select with the reason (a bounded number of times); a check that keeps failing ends
 * in `failed` once its attempts are spent; every verdict passes through {@link honestVerdict};
 * an abort stops the session with `aborted`. Side effects are actors the runner provides
 * (`machine.provide`); this file imports no I/O.
 */
import { assign, fromPromise, setup } from 'xstate';
import type { BackendListing, ReadTurnResult } from '../session/index.js';
import {
  VERDICT_CODES,
  checkResultText,
  honestVerdict,
  type Answer,
  type Clarification,
  type DecideInput,
  type Judgement,
  type SelectInput,
  type SessionInfo,
  type StartPlan,
  type Terminal,
  type TurnComplete,
  type Verdict,
  type VerifyInput,
} from './decisions.js';
import { defined } from '../util/defined.js';
import {
  aborted,
  checkAttemptsLeft,
  checked,
  errorText,
  failure,
  rejectionOf,
  type JudgeActorInput,
  type JudgeActorOutput,
  type PersonaContext,
  type PersonaEvent,
  type PersonaMachineInput,
  type PersonaOutcome,
  type VerifyActorOutput,
} from './machine-context.js';

const missing = (name: string) =>
  fromPromise<never, unknown>(async () => Promise.reject(new Error(`persona machine: no ${name} actor was provided`)));

export const personaMachine = setup({
  types: {
    input: {} as PersonaMachineInput,
    context: {} as PersonaContext,
    events: {} as PersonaEvent,
    output: {} as PersonaOutcome,
  },
  actors: {
    listBackends: missing('listBackends') as unknown as ReturnType<typeof fromPromise<BackendListing[], void>>,
    select: missing('select') as unknown as ReturnType<typeof fromPromise<StartPlan, SelectInput>>,
    start: missing('start') as unknown as ReturnType<typeof fromPromise<SessionInfo, StartPlan>>,
    read: missing('read') as unknown as ReturnType<typeof fromPromise<ReadTurnResult, SessionInfo>>,
    decide: missing('decide') as unknown as ReturnType<typeof fromPromise<Answer, DecideInput>>,
    answer: missing('answer') as unknown as ReturnType<typeof fromPromise<void, DecideInput & { answer: Answer }>>,
    judge: missing('judge') as unknown as ReturnType<typeof fromPromise<JudgeActorOutput, JudgeActorInput>>,
    guide: missing('guide') as unknown as ReturnType<
      typeof fromPromise<void, { session: SessionInfo; judgement: Extract<Judgement, { kind: 'guide' }> }>
    >,
    verify: missing('verify') as unknown as ReturnType<typeof fromPromise<VerifyActorOutput, VerifyInput>>,
    stop: missing('stop') as unknown as ReturnType<
      typeof fromPromise<void, { session: SessionInfo; verdict: Verdict; interruptTurn: boolean }>
    >,
  },
  guards: {
    isClarification: ({ event }) => (event as unknown as { output: ReadTurnResult }).output.kind === 'clarification',
    isTurnComplete: ({ event }) => (event as unknown as { output: ReadTurnResult }).output.kind === 'turn_complete',
    canReselect: ({ context }) => context.rejections.length + 1 < context.maxStartAttempts,
    guides: ({ context, event }) => {
      const out = (event as unknown as { output: JudgeActorOutput }).output;
      if (out.judgement.kind !== 'guide') return false;
      return (
        out.check === undefined || out.check.passed || checkAttemptsLeft(context.failedChecks, context.maxCheckAttempts)
      );
    },
    hasSession: ({ context }) => context.session !== undefined && context.verdict === undefined,
    undecided: ({ context }) => context.verdict === undefined,
  },
}).createMachine({
  id: 'persona',
  initial: 'listBackends',
  context: ({ input }) => ({
    ...input,
    listing: [],
    rejections: [],
    checkRuns: 0,
    failedChecks: 0,
    rounds: 0,
    clarifications: 0,
    text: '',
  }),
  on: {
    abort: [
      {
        guard: 'hasSession',
        target: '.stop',
        description: 'abort',
        actions: assign({
          verdict: ({ event }) => aborted(event),
        }),
      },
      {
        guard: 'undecided',
        target: '.settled',
        description: 'abort',
        actions: assign({
          verdict: ({ event }) => aborted(event),
        }),
      },
    ],
  },
  states: {
    listBackends: {
      invoke: {
        id: 'listBackends',
        src: 'listBackends',
        onDone: { target: 'select', actions: assign({ listing: ({ event }) => event.output }) },
        onError: {
          target: 'settled',
          description: 'failed',
          actions: assign({ verdict: ({ event }) => failure(`list-backends failed: ${errorText(event.error)}`) }),
        },
      },
    },
    select: {
      invoke: {
        id: 'select',
        src: 'select',
        input: ({ context }) => ({ listing: context.listing, rejections: context.rejections }),
        onDone: { target: 'start', actions: assign({ plan: ({ event }) => event.output }) },
        onError: {
          target: 'settled',
          description: 'no backend',
          actions: assign({ verdict: ({ event }) => failure(errorText(event.error)) }),
        },
      },
    },
    start: {
      invoke: {
        id: 'start',
        src: 'start',
        input: ({ context }) => context.plan!,
        onDone: { target: 'read', actions: assign({ session: ({ event }) => event.output }) },
        onError: [
          {
            guard: 'canReselect',
            target: 'select',
            description: 'rejected',
            actions: assign({
              rejections: ({ context, event }) => [
                ...context.rejections,
                rejectionOf(context.plan!.backend, event.error),
              ],
            }),
          },
          {
            target: 'settled',
            description: 'rejected',
            actions: assign(({ context, event }) => {
              const rejection = rejectionOf(context.plan!.backend, event.error);
              return {
                rejections: [...context.rejections, rejection],
                verdict: failure(
                  `could not start the agent session: ${rejection.message}`,
                  rejection.code,
                  rejection.transient,
                ),
              };
            }),
          },
        ],
      },
    },
    read: {
      // An abort while the agent works (Ctrl-C, a budget crossed mid-turn, a stall) interrupts
      // its turn before the stop: a CLI left running would go on spending.
      on: {
        abort: {
          guard: 'hasSession',
          target: 'stop',
          description: 'abort',
          actions: assign({ verdict: ({ event }) => aborted(event), interruptTurn: true }),
        },
      },
      invoke: {
        id: 'read',
        src: 'read',
        input: ({ context }) => context.session!,
        onDone: [
          {
            guard: 'isClarification',
            target: 'decide',
            description: 'clarification',
            actions: assign({
              turn: ({ event }) => event.output,
              clarifications: ({ context }) => context.clarifications + 1,
            }),
          },
          {
            guard: 'isTurnComplete',
            target: 'judge',
            description: 'turn_complete',
            actions: assign({
              turn: ({ event }) => event.output,
              rounds: ({ context }) => context.rounds + 1,
              text: ({ event }) => (event.output as TurnComplete).text,
            }),
          },
          {
            target: 'verify',
            description: 'ended | error | max_rounds',
            actions: assign({
              turn: ({ event }) => event.output,
              text: ({ context, event }) => ('text' in event.output ? event.output.text : context.text),
            }),
          },
        ],
        onError: {
          target: 'verify',
          description: 'error',
          actions: assign({ turn: ({ event }) => ({ kind: 'error' as const, message: errorText(event.error) }) }),
        },
      },
    },
    decide: {
      invoke: {
        id: 'decide',
        src: 'decide',
        input: ({ context }) => ({ clarification: context.turn as Clarification, session: context.session! }),
        onDone: { target: 'answer', actions: assign({ answer: ({ event }) => event.output }) },
        // A decider that cannot decide never lets the action through.
        onError: {
          target: 'answer',
          description: 'deny',
          actions: assign({
            answer: ({ event }) => ({
              allow: false,
              reason: `no decision could be made (${errorText(event.error)}); not allowed`,
              by: 'fail-safe',
            }),
          }),
        },
      },
    },
    answer: {
      invoke: {
        id: 'answer',
        src: 'answer',
        input: ({ context }) => ({
          clarification: context.turn as Clarification,
          session: context.session!,
          answer: context.answer!,
        }),
        onDone: { target: 'read' },
        onError: {
          target: 'verify',
          description: 'error',
          actions: assign({
            turn: ({ event }) => ({ kind: 'error' as const, message: `answer failed: ${errorText(event.error)}` }),
          }),
        },
      },
    },
    judge: {
      invoke: {
        id: 'judge',
        src: 'judge',
        input: ({ context }) => ({
          turn: context.turn as TurnComplete,
          session: context.session!,
          failedChecks: context.failedChecks,
          maxCheckAttempts: context.maxCheckAttempts,
        }),
        onDone: [
          {
            guard: 'guides',
            target: 'guide',
            description: 'guide',
            actions: assign(({ context, event }) => ({
              judgement: event.output.judgement,
              ...checked(context, event.output.check),
            })),
          },
          {
            target: 'stop',
            description: 'stop',
            actions: assign(({ context, event }) => {
              const { judgement, check } = event.output;
              const counts = checked(context, check);
              const verdict =
                judgement.kind === 'guide'
                  ? failure(
                      `the check \`${check?.command ?? '?'}\` still fails after ${counts.failedChecks} attempt${counts.failedChecks === 1 ? '' : 's'}${check === undefined ? '' : ` (${checkResultText(check)})`}`,
                      VERDICT_CODES.checkFailed,
                    )
                  : honestVerdict(
                      {
                        outcome: judgement.outcome,
                        note: judgement.note,
                        ...(judgement.outcome === 'success'
                          ? {}
                          : { failureReason: judgement.note, code: judgement.code ?? VERDICT_CODES.failed }),
                      },
                      check ?? context.check,
                      context.hasCheck,
                      context.requireCheck,
                    );
              return { judgement, ...counts, verdict };
            }),
          },
        ],
        onError: {
          target: 'stop',
          description: 'error',
          actions: assign({ verdict: ({ event }) => failure(`judging the turn failed: ${errorText(event.error)}`) }),
        },
      },
    },
    guide: {
      invoke: {
        id: 'guide',
        src: 'guide',
        input: ({ context }) => ({
          session: context.session!,
          judgement: context.judgement as Extract<Judgement, { kind: 'guide' }>,
        }),
        onDone: { target: 'read' },
        onError: {
          target: 'verify',
          description: 'error',
          actions: assign({
            turn: ({ event }) => ({ kind: 'error' as const, message: `guide failed: ${errorText(event.error)}` }),
          }),
        },
      },
    },
    verify: {
      invoke: {
        id: 'verify',
        src: 'verify',
        input: ({ context }) => ({ terminal: context.turn as Terminal, session: context.session! }),
        onDone: {
          target: 'stop',
          actions: assign(({ context, event }) => ({
            ...checked(context, event.output.check),
            verdict: honestVerdict(event.output.verdict, event.output.check, context.hasCheck, context.requireCheck),
          })),
        },
        onError: {
          target: 'stop',
          actions: assign({ verdict: ({ event }) => failure(`verifying failed: ${errorText(event.error)}`) }),
        },
      },
    },
    stop: {
      invoke: {
        id: 'stop',
        src: 'stop',
        input: ({ context }) => ({
          session: context.session!,
          verdict: context.verdict!,
          interruptTurn: context.interruptTurn === true,
        }),
        onDone: { target: 'settled' },
        // The settle sweep releases the session whatever happened here.
        onError: { target: 'settled' },
      },
    },
    settled: { type: 'final' },
  },
  output: ({ context }) => ({
    verdict: context.verdict ?? failure('the persona settled without a verdict'),
    ...defined({ plan: context.plan, session: context.session, check: context.check }),
    checkRuns: context.checkRuns,
    rounds: context.rounds,
    clarifications: context.clarifications,
    text: context.text,
    rejections: context.rejections,
  }),
});
