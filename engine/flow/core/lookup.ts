import type { ClarifyRule, SessionKnobs } from '../../definitions/index.js';

/** One layer of session knobs and where it came from. */
export interface KnobLayer {
  source: string;
  knobs: SessionKnobs;
}

/** The result of narrowing knob layers (the definitions layer's `narrowKnobs`). */
export interface Narrowed {
  knobs: SessionKnobs;
  provenance: Partial<Record<keyof SessionKnobs, string>>;
  conflicts: Array<{ knob: string; message: string }>;
  widened: Array<{ knob: keyof SessionKnobs; source: string; value: unknown; kept: unknown }>;
}

/** What the compiler needs to know about a persona. */
export interface PersonaInfo {
  id: string;
  driver: boolean;
  instructions: string;
  model?: string;
  taskTags: string[];
  /** Its policy then its own knobs, widest first. */
  layers: KnobLayer[];
  /** Its deny rules: they apply however it runs (a deny only narrows). */
  denyRules?: ClarifyRule[];
  /** Paths its agent must not change (globs relative to the workspace). */
  protect?: string[];
  /** A driver persona's `rules.verify`: the step's gate when the step names none, so it runs confined. */
  verify?: string;
}

/** What the compiler needs to know about a backend. */
export interface BackendInfo {
  id: string;
  /** It runs inside neo, with no CLI process of its own (neo's agent, the script player). */
  inProcess?: boolean;
  editToolNames: string[];
  honorsAllowedTools: boolean;
  /** The adapter protocol (`script` replays the step's `script:`; other agents ignore it). */
  protocol: string;
}

/**
 * Everything the pure compiler asks of the outside world. The runtime builds it from a
 * definition set; tests build it by hand.
 */
export interface PlanLookup {
  persona(id: string): PersonaInfo | undefined;
  policy(id: string): SessionKnobs | undefined;
  backend(id: string): BackendInfo | undefined;
  backendIds(): string[];
  /** The owner policy, which caps every layer. */
  owner?: KnobLayer;
  /** Narrow-only merge of layers, widest first. */
  narrow(layers: readonly KnobLayer[]): Narrowed;
  /** A path from the plan file, made absolute. */
  resolve(relative: string): string;
  /** The project directory (workspace.path resolved). */
  projectDir: string;
}
