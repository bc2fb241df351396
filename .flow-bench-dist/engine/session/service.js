import { createTransport } from '../transports/index.js';
import { NeoError, UsageError } from '../util/errors.js';
import { OPS } from './contract.js';
import { SessionFailure } from './errors.js';
import { realClock } from './live-session.js';
import { stderrLog } from './log.js';
import { METRICS, guardedMetrics } from './metrics.js';
import { answer, guide, interrupt, setPosture, stop } from './ops/control.js';
import { listBackends } from './ops/list-backends.js';
import { readTurn } from './ops/read-turn.js';
import { startSession } from './ops/start.js';
import { parseOpInput } from './parse-input.js';
import { SessionRegistry } from './registry.js';
import { CodeSessionStore } from './store/session-store.js';
export function createSessionService(options) {
    const log = options.log ?? stderrLog;
    const metrics = guardedMetrics(options.metrics);
    const store = new CodeSessionStore(options.home, { log, ...(options.fsync !== undefined ? { fsync: options.fsync } : {}) });
    const registry = new SessionRegistry({ store, log, metrics });
    const transports = options.transports ?? defaultTransports;
    const clock = options.clock ?? realClock;
    async function execute(input, caller, executeOptions = {}) {
        const raw = typeof input === 'object' && input !== null ? input.op : undefined;
        let op = typeof raw === 'string' && OPS.includes(raw) ? raw : 'invalid';
        try {
            const parsed = parseOpInput(input);
            op = parsed.op;
            const ctx = {
                registry,
                definitions: executeOptions.definitions ?? options.definitions,
                transports,
                metrics,
                log,
                clock,
                idleTimeoutMs: options.idleTimeoutMs,
                defaultCwd: executeOptions.cwd ?? options.defaultCwd ?? process.cwd(),
                caller,
                ...(options.trackRecord !== undefined ? { trackRecord: options.trackRecord } : {}),
                ...(executeOptions.signal !== undefined ? { signal: executeOptions.signal } : {}),
            };
            const result = await dispatch(ctx, parsed);
            metrics.increment(METRICS.ops, { op, outcome: 'ok' });
            return result;
        }
        catch (error) {
            metrics.increment(METRICS.ops, { op, outcome: error instanceof UsageError ? 'rejected' : 'error' });
            if (error instanceof NeoError)
                throw error;
            throw new SessionFailure('SESSION_OP_FAILED', `${op} failed: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
        }
    }
    return {
        execute: execute,
        setScopeConstraints: (scope, constraints) => registry.setScopeConstraints(scope, constraints),
        releaseAllOwnedBy: (scope) => registry.releaseAllOwnedBy(scope),
        injectUserGuidance: (sessionId, text) => registry.injectUserGuidance(sessionId, text),
        onSessionEvent: (listener) => registry.onSessionEvent(listener),
        liveSessionIds: () => registry.liveSessions().map((s) => s.id),
        store,
        registry,
        async close() {
            await registry.releaseAll('lifetime');
            await store.close();
        },
    };
}
function dispatch(ctx, input) {
    switch (input.op) {
        case 'start':
            return startSession(ctx, input);
        case 'read-turn':
            return readTurn(ctx, input);
        case 'answer':
            return answer(ctx, input);
        case 'guide':
            return guide(ctx, input);
        case 'set-posture':
            return setPosture(ctx, input);
        case 'interrupt':
            return interrupt(ctx, input);
        case 'stop':
            return stop(ctx, input);
        case 'list-backends':
            return listBackends(ctx);
    }
}
async function defaultTransports(backendId, definitions) {
    const definition = definitions.get('backend', backendId);
    return definition === undefined ? undefined : createTransport(definition);
}
