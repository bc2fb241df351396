/** What compiling a flow takes and reports (its own file: compile.ts and compile-agent.ts both use them). */

/** A problem that keeps a flow from compiling; the run is refused with all of them. */
export interface CompileProblem {
  code: string;
  message: string;
  step?: string;
  hint?: string;
}

import type { SandboxSetting } from './plan.js';

export interface CompileOptions {
  /** `--backend X`: every agent step's backend. */
  backendOverride?: string;
  /** Refuse agent steps that end up with no backend (true for a real run). */
  requireBackend?: boolean;
  /** A sub-flow's: the step that runs it and that step's sandbox, which the sub-flow's steps may raise, never lower. */
  parent?: { step: string; sandbox: SandboxSetting };
}
