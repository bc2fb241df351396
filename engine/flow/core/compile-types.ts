/** What compiling a flow takes and reports (its own file: compile.ts and compile-agent.ts both use them). */

/** A problem that keeps a flow from compiling; the run is refused with all of them. */
export interface CompileProblem {
  code: string;
  message: string;
  step?: string;
  hint?: string;
}

export interface CompileOptions {
  /** `--backend X`: every agent step's backend. */
  backendOverride?: string;
  /** Refuse agent steps that end up with no backend (true for a real run). */
  requireBackend?: boolean;
}
