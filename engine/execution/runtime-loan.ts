/**
 * What a confined process is lent of the runtimes its PATH finds in a hidden tree: the Node
 * install (node-runtime.ts) and the Python (python-runtime.ts), read-only. One call for the
 * sandbox's spec and for `neo init`'s check of the gate's program, so both see the same rule.
 */
import { nodeRuntimeLoan } from './node-runtime.js';
import { pythonRuntimeLoan } from './python-runtime.js';
import type { RuntimeLoan } from './runtime-path.js';

export type { RuntimeLoan } from './runtime-path.js';

export function runtimeLoan(env: NodeJS.ProcessEnv, hidden: readonly string[]): RuntimeLoan {
  const loans = [nodeRuntimeLoan(env, hidden), pythonRuntimeLoan(env, hidden)];
  const needs = loans.flatMap((loan) => Object.entries(loan.env ?? {}));
  return {
    binds: loans.flatMap((loan) => loan.binds),
    hide: loans.flatMap((loan) => loan.hide),
    ...(needs.length === 0 ? {} : { env: Object.fromEntries(needs) }),
  };
}
