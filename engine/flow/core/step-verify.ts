import type { Step } from '../../definitions/index.js';
import type { PlanLookup } from './lookup.js';

/**
 * An agent step's check: its own `verify:`, else its driver persona's `rules.verify`. One rule
 * for the gate's settings (compile-agent.ts) and its sandbox (compile-sandbox.ts): a persona's
 * check judges code the agent wrote, so it runs as every gate does, confined, on the final tree —
 * never as the persona's own checker in neo's process.
 */
export function stepVerify(step: Step, lookup: PlanLookup): Step['verify'] {
  if (step.verify !== undefined) return step.verify;
  return step.persona === undefined ? undefined : lookup.persona(step.persona)?.verify;
}
