import type { Backend, Posture } from '../../definitions/index.js';
import { NeoError } from '../../util/errors.js';

type PostureTarget = NonNullable<Backend['postureMap'][Posture]>;

/** Codex's own spellings; the app-server rejects anything else (`onRequest` is an error). */
export const APPROVAL_POLICIES = ['untrusted', 'on-request', 'never'] as const;
export const SANDBOX_MODES = ['read-only', 'workspace-write', 'danger-full-access'] as const;

export type ApprovalPolicy = (typeof APPROVAL_POLICIES)[number];
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** A posture as Codex expresses it: thread-level `sandbox`, turn-level `sandboxPolicy`. */
export interface CodexPosture {
  approvalPolicy: ApprovalPolicy;
  sandbox: SandboxMode;
  sandboxPolicy: Record<string, unknown>;
}

/** Reads `settings: {sandbox, approvalPolicy}` from a descriptor's posture target. */
export function codexPosture(posture: Posture, target: PostureTarget): CodexPosture {
  const settings: Record<string, unknown> = target.settings ?? {};
  const approvalPolicy = settings.approvalPolicy;
  const sandbox = settings.sandbox;
  if (
    !APPROVAL_POLICIES.includes(approvalPolicy as ApprovalPolicy) ||
    !SANDBOX_MODES.includes(sandbox as SandboxMode)
  ) {
    throw new NeoError(
      'TRANSPORT_POSTURE_UNSUPPORTED',
      `codex posture ${posture} needs settings.sandbox (${SANDBOX_MODES.join('|')}) and settings.approvalPolicy (${APPROVAL_POLICIES.join('|')}); got ${JSON.stringify(settings)}`,
    );
  }
  return {
    approvalPolicy: approvalPolicy as ApprovalPolicy,
    sandbox: sandbox as SandboxMode,
    sandboxPolicy: sandboxPolicyFor(sandbox as SandboxMode),
  };
}

/** The tagged SandboxPolicy object turn/start takes for a SandboxMode. */
export function sandboxPolicyFor(sandbox: SandboxMode): Record<string, unknown> {
  switch (sandbox) {
    case 'read-only':
      return { type: 'readOnly', networkAccess: false };
    case 'workspace-write':
      return {
        type: 'workspaceWrite',
        writableRoots: [],
        networkAccess: false,
        excludeTmpdirEnvVar: false,
        excludeSlashTmp: false,
      };
    case 'danger-full-access':
      return { type: 'dangerFullAccess' };
  }
}

/** neo effort → Codex ReasoningEffort (`max` is Codex's `xhigh`). */
export function codexEffort(effort: string): string {
  return effort === 'max' ? 'xhigh' : effort;
}
