import { distrustProject } from '../../util/own-programs.js';
import { dirname, join, resolve } from 'node:path';
import { loadDefinitions, readDefinitionText, type DefinitionSet } from '../../definitions/index.js';
import { readJsonOrNullSync, writeJsonAtomic } from '../../util/atomic-file.js';
import { contentHash } from '../../util/content-hash.js';
import { packageVersion } from '../../util/package-root.js';
import type { CompiledPlan, PlanTree } from '../core/plan.js';
import type { PinnedDefinition } from '../store/run-files.js';
import {
  assertClean,
  assertSettingsClean,
  assertCompiled,
  assertFlowFile,
  compileFlowFile,
  loadPlanDefinitions,
  type LoadedPlan,
} from './load-plan.js';
import { defined } from '../../util/defined.js';

/** A plan ready to run, with the definitions around it. */
export interface ReadyPlan {
  file: string;
  plan: CompiledPlan;
  pinned: PinnedDefinition[];
  /** Its sub-flow steps' plans, compiled as they will run (none on a cache hit: plans with sub-flows are not cached). */
  children: Record<string, PlanTree>;
  /** The layers without the plan (what agents and the manifest use). */
  set: DefinitionSet;
  /** The full load, when it happened (absent on a cache hit). */
  loaded?: LoadedPlan;
}

/**
 * Loads and compiles a plan, remembering the result under NEO_HOME/cache/flows/. The key is the
 * plan's text, the hash of every other definition layer, the options and neo's version: any
 * change to any of them misses. A hit skips parsing and validating the plan — the `yaml`
 * package and the schema validators are most of a one-step flow's start-up. Only clean plans
 * without sub-flows are cached; `fresh` (for --watch) always loads.
 */
export async function readyPlan(options: {
  planFile: string;
  cwd: string;
  home: string;
  backendOverride?: string;
  requireBackend: boolean;
  fresh?: boolean;
}): Promise<ReadyPlan> {
  const file = resolve(options.cwd, options.planFile);
  assertFlowFile(file);
  // Before any git call or sandbox probe: the plan's project is the run's (util/own-programs.ts).
  distrustProject(dirname(file));
  // The plan and the cache entry are read synchronously: small local files the run waits for.
  // A plan that cannot be read is never cached: the full load below reports why.
  const read = readDefinitionText(file);
  const text = 'text' in read ? read.text : undefined;
  const base = await loadDefinitions({ cwd: dirname(file), home: options.home });
  // Before a cached plan could skip the check: an invalid owner policy or neo.yaml runs nothing.
  base.set.assertOwnerPolicy();
  assertSettingsClean(file, base.diagnostics, options.cwd);
  const key = contentHash(
    'flow-plan/2', // 2: configs pinned with the definitions
    packageVersion(),
    file,
    text ?? '',
    base.set.hash,
    options.backendOverride ?? '',
    String(options.requireBackend),
  );
  const path = join(options.home, 'cache', 'flows', `${key.slice(0, 40)}.json`);
  if (!options.fresh && text !== undefined) {
    const hit = readJsonOrNullSync<{ plan: CompiledPlan; pinned: PinnedDefinition[] }>(path);
    if (hit?.plan !== undefined && Array.isArray(hit.pinned))
      return { file, plan: hit.plan, pinned: hit.pinned, children: {}, set: base.set };
  }
  const loaded = await loadPlanDefinitions({ planFile: file, cwd: options.cwd, home: options.home });
  assertClean(loaded, options.cwd);
  const compiled = compileFlowFile(loaded.set, file, {
    home: options.home,
    ...defined({ backendOverride: options.backendOverride }),
    requireBackend: options.requireBackend,
  });
  assertCompiled(compiled.problems, file);
  if (loaded.subflows.length === 0 && text !== undefined)
    await writeJsonAtomic(path, { plan: compiled.plan, pinned: compiled.pinned }).catch(() => undefined);
  return {
    file,
    plan: compiled.plan,
    pinned: compiled.pinned,
    children: compiled.children,
    set: loaded.subflows.length === 0 ? base.set : loaded.set,
    loaded,
  };
}
