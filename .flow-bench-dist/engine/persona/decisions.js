/**
 * The verdict a proposal earns: `success` only when a check exists and its last run passed.
 * Without a verify command nothing proved the work, so the best it earns is `partial`; with a
 * failing (or missing) check it is `failed`. Other outcomes pass through: a decider may always
 * claim less than success.
 */
export function honestVerdict(proposed, check, hasCheck) {
    if (proposed.outcome !== 'success')
        return proposed;
    if (!hasCheck) {
        return { outcome: 'partial', note: `${proposed.note} (not verified: no verify command)`.trim(), failureReason: 'not verified: this persona and step have no verify command' };
    }
    if (check === undefined)
        return { outcome: 'failed', note: proposed.note, failureReason: 'the verify command did not run' };
    if (!check.passed) {
        return { outcome: 'failed', note: proposed.note, failureReason: `the check \`${check.command}\` fails (${check.timedOut ? 'timed out' : `exit ${check.exitCode ?? '?'}`})` };
    }
    return proposed;
}
/** Fills a guidance template: `{output}` is the check's tail, `{command}` the check itself. */
export function fillGuidance(template, check) {
    return template.replace(/\{output\}/g, check.tail).replace(/\{command\}/g, check.command);
}
/** The guidance sent back for a failed check when the persona gives no template. */
export const DEFAULT_GATE_GUIDANCE = [
    'The check `{command}` still fails. Fix the cause; do not weaken or skip the check.',
    'Last lines of its output:',
    '```',
    '{output}',
    '```',
].join('\n');
