import type { ProjectProfile } from '../../capabilities/index.js';
import type { DefinitionSet } from '../../definitions/index.js';
import type { CompiledPlan } from '../core/plan.js';

/**
 * The project's capability profile as the run sees it: detected once, when the run (or a resume)
 * starts, from the project the plan belongs to and the definitions' catalog, before any step runs,
 * then held in memory and handed to every session start of the run. A session start never reads
 * the workspace for it: a confined step writes the workspace (in `inplace` isolation it is the
 * checkout), and a file it plants (`.env.example` naming STRIPE_, a workflow) must not turn a
 * capability on for a later step. Undefined for a plan without agent or sub-flow steps (the
 * capability code is not loaded) or with NEO_CAPABILITIES=off.
 */
export async function detectRunProfile(input: {
  home: string;
  plan: CompiledPlan;
  set: DefinitionSet;
  env: NodeJS.ProcessEnv;
}): Promise<ProjectProfile | undefined> {
  // A sub-flow's steps count as agents: a resume compiles its sub-flows only when they run.
  if (!input.plan.steps.some((step) => step.kind === 'agent' || step.kind === 'flow')) return undefined;
  const { buildProjectProfile, capabilitiesEnabled, catalogEntries } = await import('../../capabilities/index.js');
  if (!capabilitiesEnabled(input.env)) return undefined;
  return buildProjectProfile(input.home, input.plan.projectDir, catalogEntries(input.set));
}
