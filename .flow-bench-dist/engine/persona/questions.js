/**
 * Questions a persona puts to a person: at the terminal when there is one, and always as a
 * pending question another terminal can answer with `neo flow approve <runId> <key> --decision
 * <id>`. The files sit where the flow engine keeps approval answers —
 * `NEO_HOME/approvals/<runId>/<key>.question.json` beside the answer `<key>.json` — so one
 * command answers both. An unanswered question never answers itself: an abort leaves it denied.
 */
import { watch } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { userInfo } from 'node:os';
import { readJsonOrNull, writeJsonAtomic } from '../util/atomic-file.js';
import { UsageError } from '../util/errors.js';
function questionFile(home, runId, key) {
    return join(home, 'approvals', runId, `${key}.question.json`);
}
function answerFile(home, runId, key) {
    return join(home, 'approvals', runId, `${key}.json`);
}
/** The command that answers a question from another terminal. */
export function answerCommand(question) {
    return `neo flow approve ${question.runId} ${question.key} --decision ${question.decisions.map((d) => d.id).join('|')}`;
}
/**
 * An asker over the pending-question files, racing the terminal prompt when one is given.
 * `onWaiting` is told once per question, with the command that answers it.
 */
export function pendingQuestionAsker(options) {
    return {
        async ask(question, signal) {
            await writeJsonAtomic(questionFile(options.home, question.runId, question.key), { ...question, askedAt: new Date().toISOString() });
            options.onWaiting?.(question, answerCommand(question));
            try {
                const answer = await waitForAnswer(options.home, question, signal, options.terminal);
                if (answer === undefined)
                    throw new Error(`no answer to \`${question.key}\` (the run was stopped)`);
                return answer;
            }
            finally {
                await rm(questionFile(options.home, question.runId, question.key), { force: true });
            }
        },
    };
}
/** A question waiting for an answer, if there is one. */
export async function pendingQuestion(home, runId, key) {
    const question = await readJsonOrNull(questionFile(home, runId, key)).catch(() => null);
    return question !== null && Array.isArray(question.decisions) ? question : undefined;
}
/** Answers a pending question from another terminal (`neo flow approve`); checks the decision. */
export async function answerQuestion(home, runId, key, answer) {
    const question = await pendingQuestion(home, runId, key);
    if (question === undefined)
        throw new UsageError('PERSONA_NO_QUESTION', `run ${runId} has no pending question \`${key}\``);
    const ids = question.decisions.map((d) => d.id);
    if (!ids.includes(answer.decision))
        throw new UsageError('PERSONA_UNKNOWN_DECISION', `\`${answer.decision}\` is not a decision of \`${key}\``, { hint: `choose one of: ${ids.join(', ')}` });
    await writeJsonAtomic(answerFile(home, runId, key), { decision: answer.decision, ...(answer.note === undefined ? {} : { note: answer.note }), by: `cli (${safeUser()})`, at: new Date().toISOString() });
    return question;
}
async function takeAnswer(home, question) {
    const path = answerFile(home, question.runId, question.key);
    let answer;
    try {
        answer = JSON.parse(await readFile(path, 'utf8'));
    }
    catch {
        return undefined;
    }
    await rm(path, { force: true });
    return typeof answer.decision === 'string' && question.decisions.some((d) => d.id === answer.decision) ? answer : undefined;
}
function waitForAnswer(home, question, signal, terminal) {
    const dir = join(home, 'approvals', question.runId);
    return new Promise((resolve) => {
        let settled = false;
        let watcher;
        let checking = false;
        const done = new AbortController();
        const finish = (answer) => {
            if (settled)
                return;
            settled = true;
            clearInterval(poll);
            watcher?.close();
            done.abort();
            resolve(answer);
        };
        const check = async () => {
            if (checking || settled)
                return;
            checking = true;
            try {
                const answer = await takeAnswer(home, question);
                if (answer !== undefined)
                    finish(answer);
            }
            finally {
                checking = false;
            }
        };
        void mkdir(dir, { recursive: true }).then(() => {
            if (settled)
                return;
            try {
                watcher = watch(dir, () => void check());
                watcher.on('error', () => undefined);
            }
            catch {
                watcher = undefined;
            }
        });
        // The watcher can miss an event (an editor's rename, a network file system): poll slowly too.
        const poll = setInterval(() => void check(), 500);
        poll.unref();
        if (signal.aborted)
            finish(undefined);
        signal.addEventListener('abort', () => finish(undefined), { once: true });
        void check();
        terminal?.(question, AbortSignal.any([signal, done.signal])).then((picked) => {
            if (picked !== undefined)
                finish({ ...picked, by: 'tty', at: new Date().toISOString() });
        }, () => undefined);
    });
}
function safeUser() {
    try {
        return userInfo().username;
    }
    catch {
        return 'unknown';
    }
}
