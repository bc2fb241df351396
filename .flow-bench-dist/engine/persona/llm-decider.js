/**
 * The llm decider (seed 004's original driver): the persona's body is the system prompt of neo's
 * own agent, whose one tool is `code-session`. One conversation spans the whole dispatch: the
 * first message carries the task, the limits, list-backends, briefingNotes and lessons; every
 * read-turn result follows as a message, and the model answers each with one decision op. A turn
 * that ends without a decision is nudged once, then treated as no decision (the machine then
 * denies, or stops with `failed`) — a silent model never lets anything through.
 */
import { createConfiguredAgent, loadAgentSettings, isModelClass } from '../agent/index.js';
import { FailureError } from '../util/errors.js';
import { clarificationMessage, firstMessage, nudgeMessage, rejectedMessage, startedMessage, terminalMessage, turnMessage } from './llm-messages.js';
import { codeSessionTool, OpToolState } from './op-tool.js';
export class LlmDecider {
    kind = 'llm';
    #o;
    #state = new OpToolState();
    #agent;
    #greeted = false;
    #announced;
    constructor(options) {
        this.#o = options;
        this.#state.pin = options.constraints.backend;
    }
    async select(input) {
        this.#state.listing = input.listing;
        const last = input.rejections.at(-1);
        const message = !this.#greeted || last === undefined ? this.#first(input) : rejectedMessage(last);
        this.#greeted = true;
        const decision = await this.#decide('select', message);
        if (decision.op !== 'start')
            throw unexpected(decision);
        const s = decision.input;
        const tags = [...new Set([...this.#o.taskTags, ...(s.taskTags ?? [])])];
        return {
            backend: s.backend ?? this.#o.constraints.backend,
            brief: s.brief,
            taskTags: tags,
            ...(s.agentModel === undefined ? {} : { agentModel: s.agentModel }),
            ...(s.effort === undefined ? {} : { effort: s.effort }),
            ...(s.maxPosture === undefined ? {} : { maxPosture: s.maxPosture }),
            initialPosture: s.initialPosture ?? this.#o.initialPosture,
            ...(s.maxRounds === undefined ? {} : { maxRounds: s.maxRounds }),
            ...(s.allowedTools === undefined ? {} : { allowedTools: s.allowedTools }),
            ...(s.appendSystemPrompt === undefined ? {} : { appendSystemPrompt: s.appendSystemPrompt }),
            why: `chosen by the llm driver (${this.#o.model ?? 'default model'})`,
        };
    }
    async decide(input) {
        this.#enter(input.session, 'decide', input.clarification.clarificationId);
        const decision = await this.#decide('decide', clarificationMessage(input.clarification, input.session, this.#announce(input.session)));
        if (decision.op !== 'answer')
            throw unexpected(decision);
        return { allow: decision.allow, reason: decision.reason ?? (decision.allow ? 'allowed by the driver' : 'denied by the driver'), ...(decision.note === undefined ? {} : { note: decision.note }), by: 'llm' };
    }
    async judge(input) {
        this.#enter(input.session, 'judge');
        const prefix = this.#announce(input.session);
        const decision = await this.#decide('judge', `${prefix === '' ? '' : `${prefix}\n`}${turnMessage(input.turn, input.session, input.check, input.attemptsLeft)}`);
        if (decision.op === 'guide')
            return { kind: 'guide', text: decision.text, ...(decision.agentModel === undefined ? {} : { agentModel: decision.agentModel }), ...(decision.effort === undefined ? {} : { effort: decision.effort }), why: 'the llm driver guided' };
        if (decision.op === 'stop')
            return { kind: 'stop', outcome: decision.outcome, note: decision.note ?? `stopped by the llm driver: ${decision.outcome}` };
        throw unexpected(decision);
    }
    async verify(input) {
        this.#enter(input.session, 'verify');
        const prefix = this.#announce(input.session);
        const decision = await this.#decide('verify', `${prefix === '' ? '' : `${prefix}\n`}${terminalMessage(input.terminal, input.session, input.check)}`);
        if (decision.op !== 'stop')
            throw unexpected(decision);
        const note = decision.note ?? `stopped by the llm driver: ${decision.outcome}`;
        return { outcome: decision.outcome, note, ...(decision.outcome === 'success' ? {} : { failureReason: note }) };
    }
    #first(input) {
        const o = this.#o;
        return firstMessage({ brief: o.brief, cwd: o.cwd, constraints: o.constraints, initialPosture: o.initialPosture, taskTags: o.taskTags, ...(o.verify === undefined ? {} : { verify: o.verify }), listing: input.listing, lessons: o.lessons });
    }
    #enter(session, mode, clarificationId) {
        this.#state.side = this.#o.side(session.sessionId);
        this.#state.expect(mode, { sessionId: session.sessionId, ...(clarificationId === undefined ? {} : { clarificationId }) });
    }
    /** The first message about a session says it started. */
    #announce(session) {
        if (this.#announced === session.sessionId)
            return '';
        this.#announced = session.sessionId;
        return startedMessage(session);
    }
    async #decide(mode, message) {
        if (mode === 'select')
            this.#state.expect('select');
        const agent = await this.#agentOnce();
        await agent.send(message, { signal: this.#o.signal });
        if (this.#state.decision === undefined) {
            await agent.send(nudgeMessage(mode === 'select' ? ['start'] : mode === 'decide' ? ['answer'] : mode === 'judge' ? ['guide', 'stop'] : ['stop']), { signal: this.#o.signal });
        }
        const decision = this.#state.decision;
        if (decision === undefined)
            throw new FailureError('PERSONA_NO_DECISION', `the llm driver made no ${mode} decision`);
        return decision;
    }
    #agentOnce() {
        this.#agent ??= this.#o.agent({ system: this.#o.instructions, tools: [codeSessionTool(this.#state)], ...(this.#o.model === undefined ? {} : { model: this.#o.model }) });
        return this.#agent;
    }
}
function unexpected(decision) {
    return new FailureError('PERSONA_NO_DECISION', `the llm driver answered with ${decision.op} where another decision was expected`);
}
/**
 * neo's own agent from neo.yaml (NEO_HOME, then the project's `.neo/`). A model class the
 * provider leaves unmapped falls back to `agent.model` when one is set.
 */
export function configuredDriverAgent(options) {
    return async ({ system, tools, model }) => {
        const settings = await loadAgentSettings({ cwd: options.cwd, home: options.home, ...(options.env === undefined ? {} : { env: options.env }) });
        const mapped = model !== undefined && isModelClass(model) && settings.provider.models[model] === undefined && settings.model !== undefined ? undefined : model;
        return createConfiguredAgent({ settings, system, tools, ...(mapped === undefined ? {} : { model: mapped }) });
    };
}
