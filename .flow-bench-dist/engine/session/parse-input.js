/**
 * Loud parsing of op input: every field is checked for type and every unknown field is an error
 * (with a did-you-mean), so a driver's typo never silently widens or drops a request.
 */
import { POSTURES, isPosture } from '../definitions/index.js';
import { didYouMean } from '../util/did-you-mean.js';
import { OPS, STOP_OUTCOMES } from './contract.js';
import { SessionRejection, badInput } from './errors.js';
const EFFORTS = ['low', 'medium', 'high', 'max'];
/** The fields each op accepts besides `op`. */
const FIELDS = {
    start: ['brief', 'maxPosture', 'initialPosture', 'backend', 'cwd', 'agentModel', 'effort', 'maxRounds', 'allowedTools', 'appendSystemPrompt', 'resumeSessionId', 'taskTags', 'backendOptions'],
    'read-turn': ['sessionId', 'includeDiff'],
    answer: ['sessionId', 'clarificationId', 'allow', 'reason', 'note'],
    guide: ['sessionId', 'text', 'agentModel', 'effort'],
    'set-posture': ['sessionId', 'posture'],
    interrupt: ['sessionId'],
    stop: ['sessionId', 'outcome', 'note'],
    'list-backends': [],
};
/** Parses one op request; throws SESSION_BAD_INPUT / SESSION_UNKNOWN_OP naming the problem. */
export function parseOpInput(input) {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        throw badInput('input', `expected an object with an \`op\` field, got ${describe(input)}`);
    }
    const record = input;
    const op = record.op;
    if (typeof op !== 'string')
        throw badInput('op', `expected one of ${OPS.join(', ')}, got ${describe(op)}`);
    if (!OPS.includes(op)) {
        const guess = didYouMean(op, OPS);
        throw new SessionRejection('SESSION_UNKNOWN_OP', `unknown op \`${op}\``, {
            hint: guess !== undefined ? `did you mean \`${guess}\`?` : `ops are ${OPS.join(', ')}`,
        });
    }
    const name = op;
    for (const key of Object.keys(record)) {
        if (key === 'op' || FIELDS[name].includes(key))
            continue;
        const guess = didYouMean(key, FIELDS[name]);
        throw badInput(key, `unknown field for op \`${name}\``, guess !== undefined ? `did you mean \`${guess}\`?` : `\`${name}\` takes ${FIELDS[name].join(', ') || 'no fields'}`);
    }
    const f = new Fields(record);
    switch (name) {
        case 'start': {
            const parsed = { op: 'start', brief: f.text('brief') };
            assignDefined(parsed, {
                maxPosture: f.posture('maxPosture'),
                initialPosture: f.posture('initialPosture'),
                backend: f.optionalText('backend'),
                cwd: f.optionalText('cwd'),
                agentModel: f.optionalText('agentModel'),
                effort: f.effort('effort'),
                maxRounds: f.positiveInt('maxRounds'),
                allowedTools: f.stringList('allowedTools', { nonEmpty: true }),
                appendSystemPrompt: f.optionalString('appendSystemPrompt'),
                resumeSessionId: f.optionalText('resumeSessionId'),
                taskTags: f.stringList('taskTags', { nonEmpty: false }),
                backendOptions: f.object('backendOptions'),
            });
            return parsed;
        }
        case 'read-turn':
            return assignDefined({ op: 'read-turn', sessionId: f.text('sessionId') }, { includeDiff: f.bool('includeDiff') });
        case 'answer': {
            const allow = f.bool('allow');
            if (allow === undefined)
                throw badInput('allow', 'required: true to allow the tool call, false to deny it');
            return assignDefined({ op: 'answer', sessionId: f.text('sessionId'), clarificationId: f.text('clarificationId'), allow }, { reason: f.optionalString('reason'), note: f.optionalString('note') });
        }
        case 'guide':
            return assignDefined({ op: 'guide', sessionId: f.text('sessionId'), text: f.text('text') }, { agentModel: f.optionalText('agentModel'), effort: f.effort('effort') });
        case 'set-posture': {
            const posture = f.posture('posture');
            if (posture === undefined)
                throw badInput('posture', `required: one of ${POSTURES.join(', ')}`);
            return { op: 'set-posture', sessionId: f.text('sessionId'), posture };
        }
        case 'interrupt':
            return { op: 'interrupt', sessionId: f.text('sessionId') };
        case 'stop':
            return assignDefined({ op: 'stop', sessionId: f.text('sessionId') }, { outcome: f.outcome('outcome'), note: f.optionalString('note') });
        case 'list-backends':
            return { op: 'list-backends' };
    }
}
/** Typed readers over one input record; each throws naming its field. */
class Fields {
    record;
    constructor(record) {
        this.record = record;
    }
    text(key) {
        const value = this.record[key];
        if (value === undefined)
            throw badInput(key, 'required');
        if (typeof value !== 'string' || value.trim() === '')
            throw badInput(key, `expected a non-empty string, got ${describe(value)}`);
        return value;
    }
    optionalText(key) {
        return this.record[key] === undefined ? undefined : this.text(key);
    }
    optionalString(key) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (typeof value !== 'string')
            throw badInput(key, `expected a string, got ${describe(value)}`);
        return value;
    }
    bool(key) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (typeof value !== 'boolean')
            throw badInput(key, `expected true or false, got ${describe(value)}`);
        return value;
    }
    positiveInt(key) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
            throw badInput(key, `expected a whole number ≥ 1, got ${describe(value)}`);
        return value;
    }
    posture(key) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (!isPosture(value)) {
            const guess = typeof value === 'string' ? didYouMean(value, POSTURES) : undefined;
            throw badInput(key, `expected one of ${POSTURES.join(', ')}, got ${describe(value)}`, guess !== undefined ? `did you mean \`${guess}\`?` : undefined);
        }
        return value;
    }
    effort(key) {
        return this.oneOf(key, EFFORTS);
    }
    outcome(key) {
        return this.oneOf(key, STOP_OUTCOMES);
    }
    oneOf(key, values) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (typeof value !== 'string' || !values.includes(value)) {
            const guess = typeof value === 'string' ? didYouMean(value, values) : undefined;
            throw badInput(key, `expected one of ${values.join(', ')}, got ${describe(value)}`, guess !== undefined ? `did you mean \`${guess}\`?` : undefined);
        }
        return value;
    }
    stringList(key, { nonEmpty }) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item.trim() === '')) {
            throw badInput(key, `expected a list of non-empty strings, got ${describe(value)}`);
        }
        if (nonEmpty && value.length === 0)
            throw badInput(key, 'an empty list allows nothing; omit the field to use the defaults');
        return [...new Set(value)];
    }
    object(key) {
        const value = this.record[key];
        if (value === undefined)
            return undefined;
        if (typeof value !== 'object' || value === null || Array.isArray(value))
            throw badInput(key, `expected an object, got ${describe(value)}`);
        return value;
    }
}
/** Copies the defined values of `extra` onto `target` (optional fields stay absent, not undefined). */
function assignDefined(target, extra) {
    for (const [key, value] of Object.entries(extra))
        if (value !== undefined)
            target[key] = value;
    return target;
}
function describe(value) {
    if (value === null)
        return 'null';
    if (Array.isArray(value))
        return 'a list';
    if (typeof value === 'string')
        return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    if (typeof value === 'object')
        return 'an object';
    return `${typeof value} ${String(value)}`;
}
