import { loadPersona } from './load-persona.js';
import { runPersona } from './run-persona.js';
import { foldDiffs } from './fold-diffs.js';
export class PersonaStepDriver {
    #o;
    constructor(options) {
        this.#o = options;
    }
    async drive(task, ctx) {
        const set = this.#o.definitions();
        const id = task.settings.persona;
        const definition = id === undefined ? undefined : set.get('persona', id);
        if (definition === undefined || definition.data.driver !== true)
            return this.#o.fallback.drive(task, ctx);
        const sessions = ctx.sessions;
        if (sessions.setScopeConstraints === undefined) {
            // Fail closed: a driver whose ceiling cannot be registered never starts.
            return { status: 'failed', verdict: 'failed', outputs: {}, error: { code: 'PERSONA_NO_CONSTRAINTS', message: 'the session service of this run cannot register scope constraints; a driver persona cannot run without them' } };
        }
        const s = task.settings;
        const gate = s.verify;
        const checker = gate === undefined ? undefined : { command: gate.run, maxAttempts: gate.attempts, run: async () => gateCheck(gate.run, await ctx.runGate(gate)) };
        const watch = new IdleWatch(ctx, task.idleTimeoutMs);
        const stepLabel = `${task.step}${task.item === undefined ? '' : `[${task.item}]`}`;
        try {
            const result = await runPersona({
                home: this.#o.home,
                set,
                persona: loadPersona(set, id),
                brief: task.brief,
                cwd: task.cwd,
                sessions: sessions,
                scope: `persona:${task.runId}:${task.exec}`,
                runId: task.runId,
                questionPrefix: `${stepLabel}-`,
                caller: {
                    source: `step ${task.step}`,
                    knobs: { maxPosture: s.maxPosture, initialPosture: s.initialPosture, ...(s.maxRounds === undefined ? {} : { maxRounds: s.maxRounds }), ...(s.backend === undefined ? {} : { backend: s.backend }), ...(s.allowedTools === undefined ? {} : { allowedTools: s.allowedTools }) },
                    backendOverride: s.provenance.backend === '--backend',
                },
                taskTags: s.taskTags,
                ...(s.model === undefined ? {} : { agentModel: s.model }),
                ...(s.effort === undefined ? {} : { effort: s.effort }),
                ...(s.script === undefined ? {} : { backendOptions: { script: s.script } }),
                ...(checker === undefined ? {} : { checker }),
                signal: watch.signal,
                observe: (o) => watch.observe(o),
                mayContinue: () => ctx.budget()?.message,
                ...(this.#o.agent === undefined ? {} : { agent: this.#o.agent }),
            });
            return outcomeOf(result, watch, ctx.signal, id);
        }
        catch (error) {
            const e = error;
            return { status: 'failed', verdict: 'failed', outputs: {}, error: { code: e.code ?? 'PERSONA_FAILED', message: e.message ?? String(error) } };
        }
        finally {
            watch.close();
        }
    }
}
function gateCheck(command, run) {
    return { command, passed: run.passed, ...(run.exitCode === undefined ? {} : { exitCode: run.exitCode }), timedOut: run.timedOut, tail: run.tail, ...(run.flaky ? { flaky: true } : {}), durationMs: run.durationMs };
}
function outcomeOf(result, watch, signal, persona) {
    const v = result.verdict;
    const check = result.outcome.check;
    const outputs = {
        text: result.outcome.text,
        verdict: v.outcome,
        note: v.note,
        persona,
        backend: result.session?.backend,
        ...(result.model === undefined ? {} : { model: result.model }),
        sessionId: result.session?.sessionId,
        rounds: result.outcome.rounds,
        costUsd: result.costUsd,
        diff: foldDiffs(result.diffs),
        ...(check === undefined ? {} : { gate: { command: check.command, passed: check.passed, exitCode: check.exitCode ?? null, attempt: result.outcome.checkRuns, attempts: result.outcome.checkRuns, tail: check.tail } }),
    };
    if (v.outcome === 'success')
        return { status: 'succeeded', verdict: 'success', outputs };
    const reason = signal.aborted ? signal.reason : undefined;
    const error = watch.stalled ? { code: 'FLOW_STEP_STALLED', message: `the agent sent no event for ${Math.round((watch.idleMs ?? 0) / 100) / 10}s: stalled`, transient: true }
        : reason !== undefined && typeof reason.code === 'string' ? { code: reason.code, message: reason.message ?? reason.code }
            : { code: `PERSONA_${v.outcome.toUpperCase()}`, message: v.failureReason ?? v.note };
    return { status: 'failed', verdict: watch.stalled ? 'stalled' : v.outcome, outputs, error };
}
/**
 * Progress and ledger charges for the flow, and the step's idle (stall) timeout when the flow
 * sets one: time spent running the check or waiting for a person is not the agent being silent.
 */
class IdleWatch {
    #controller = new AbortController();
    signal;
    idleMs;
    #ctx;
    #last;
    #paused = false;
    #timer;
    #rounds = 0;
    #cost = 0;
    #files = new Set();
    stalled = false;
    constructor(ctx, idleMs) {
        this.#ctx = ctx;
        this.idleMs = idleMs;
        this.signal = AbortSignal.any([ctx.signal, this.#controller.signal]);
        this.#last = ctx.now();
        if (idleMs !== undefined) {
            this.#timer = setInterval(() => {
                if (this.#paused || this.stalled || ctx.now() - this.#last < idleMs)
                    return;
                this.stalled = true;
                this.#controller.abort({ code: 'FLOW_STEP_STALLED', message: 'stalled' });
            }, Math.max(20, Math.min(1000, Math.floor(idleMs / 4))));
            this.#timer.unref();
        }
    }
    observe(o) {
        this.#last = this.#ctx.now();
        this.#paused = false;
        switch (o.type) {
            case 'started':
                this.#ctx.progress({ backend: o.session.backend, round: 1, maxRounds: o.session.maxRounds });
                return;
            case 'waiting':
                this.#paused = true;
                this.#ctx.progress({ note: `waiting for approval: ${o.command}` });
                return;
            case 'notice':
                if (o.message.startsWith('checking'))
                    this.#paused = true;
                this.#ctx.progress({ note: o.message });
                return;
            case 'answered':
                this.#ctx.progress({ note: `${o.answer.allow ? 'allowed' : 'denied'} ${o.toolName}` });
                return;
            case 'turn':
                return;
            case 'agent': {
                const e = o.live.event;
                if (e.type === 'tool_use')
                    this.#ctx.progress({ tool: e.name, round: this.#rounds + 1 });
                else if (e.type === 'started' && e.model !== undefined)
                    this.#ctx.progress({ model: e.model });
                else if (e.type === 'turn_diff') {
                    for (const f of e.diff.files)
                        this.#files.add(f.path);
                    this.#ctx.progress({ filesChanged: this.#files.size });
                }
                else if (e.type === 'turn_complete' || e.type === 'ended') {
                    const tokens = (e.usage?.inputTokens ?? 0) + (e.usage?.outputTokens ?? 0);
                    const costUsd = typeof e.costUsd === 'number' ? e.costUsd : 0;
                    // An `ended` that closes a turn carries that turn's figures (numTurns says so).
                    const turns = e.type === 'turn_complete' || e.numTurns !== undefined ? 1 : 0;
                    this.#rounds += turns;
                    this.#cost += costUsd;
                    this.#ctx.charge({ turns, tokens, costUsd });
                    this.#ctx.progress({ round: this.#rounds, costUsd: this.#cost });
                }
                return;
            }
            default:
                return;
        }
    }
    close() {
        if (this.#timer !== undefined)
            clearInterval(this.#timer);
    }
}
