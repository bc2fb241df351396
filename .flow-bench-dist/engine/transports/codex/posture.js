import { NeoError } from '../../util/errors.js';
/** Codex's own spellings; the app-server rejects anything else (`onRequest` is an error). */
export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'never'];
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'];
/** Reads `settings: {sandbox, approvalPolicy}` from a descriptor's posture target. */
export function codexPosture(posture, target) {
    const settings = target.settings ?? {};
    const approvalPolicy = settings.approvalPolicy;
    const sandbox = settings.sandbox;
    if (!APPROVAL_POLICIES.includes(approvalPolicy) || !SANDBOX_MODES.includes(sandbox)) {
        throw new NeoError('TRANSPORT_POSTURE_UNSUPPORTED', `codex posture ${posture} needs settings.sandbox (${SANDBOX_MODES.join('|')}) and settings.approvalPolicy (${APPROVAL_POLICIES.join('|')}); got ${JSON.stringify(settings)}`);
    }
    return { approvalPolicy: approvalPolicy, sandbox: sandbox, sandboxPolicy: sandboxPolicyFor(sandbox) };
}
/** The tagged SandboxPolicy object turn/start takes for a SandboxMode. */
export function sandboxPolicyFor(sandbox) {
    switch (sandbox) {
        case 'read-only':
            return { type: 'readOnly', networkAccess: false };
        case 'workspace-write':
            return { type: 'workspaceWrite', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false };
        case 'danger-full-access':
            return { type: 'dangerFullAccess' };
    }
}
/** neo effort → Codex ReasoningEffort (`max` is Codex's `xhigh`). */
export function codexEffort(effort) {
    return effort === 'max' ? 'xhigh' : effort;
}
