import { dirname, resolve } from 'node:path';
import { readDotenvLayers, type DotenvLayers } from '../../agent/settings/index.js';
import type { ProjectProfile } from '../../capabilities/index.js';
import { loadDefinitions, type DefinitionSet } from '../../definitions/index.js';
import { describeProcess } from '../../execution/index.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { NeoError, UsageError } from '../../util/errors.js';
import type { RunInput } from '../core/advance.js';
import type { CompiledPlan } from '../core/plan.js';
import { mergePlan } from '../core/plan-merge.js';
import { replay } from '../core/reduce.js';
import { initialRunState } from '../core/state.js';
import type { RunRecord } from '../store/run-files.js';
import { RunStore } from '../store/run-store.js';
import { driverAlive, readRunRecord } from '../store/runs.js';
import { tidyRuns } from '../store/tidy.js';
import { takeOverNotice } from '../store/lock-file.js';
import { borrowedWorkspace, reopenWorkspace } from '../workspace/index.js';
import { settleAbandoned } from './abandoned.js';
import { AgentServices } from './agents.js';
import { drive } from './drive.js';
import { driverFields } from './record.js';
import { requirePlanSandboxes } from './require-sandbox.js';
import { requirePlanSecrets } from './require-secrets.js';
import { requirePlanBackends } from './require-backends.js';
import { sweepRunLitter } from './litter.js';
import { assertCompiled, compileFlowFile, loadPlanDefinitions, planHash } from './load-plan.js';
import { changedDefinitions, refuseChangedAtRunTime } from './pinned-changes.js';
import { changedProjectDotenv, pinProjectDotenv } from './dotenv-pin.js';
import { outcomeOf, type ChildContext, type ResumeOptions, type RunOutcome } from './options.js';
import { runSubflow } from './subflow.js';
import { defined } from '../../util/defined.js';
import { reopenFinishedApprovals } from './approvals.js';
import { detectRunProfile } from './run-profile.js';

/**
 * Resumes a run explicitly: same inputs, same pinned plan (a definition changed since is
 * reported; --rebase-definitions opts in to the current files), the state rebuilt from
 * events.jsonl. A finished step never runs again unless named with --rerun (its dependents
 * then run again too).
 */
export async function resumeRun(options: ResumeOptions): Promise<RunOutcome> {
  let current: DefinitionSet | undefined;
  let dotenv: DotenvLayers | undefined;
  let profile: ProjectProfile | undefined;
  const agents = new AgentServices(
    options.home,
    { set: () => current!, dotenv: () => dotenv, profile: () => profile },
    defined({ driver: options.driver, sessions: options.sessions, host: options.sessionHost }),
  );
  try {
    return await resumeWith(
      options,
      agents,
      undefined,
      (set, env) => {
        current = set;
        dotenv = env;
      },
      (detected) => (profile = detected),
    );
  } finally {
    await agents.close();
  }
}

/** Resumes an interrupted sub-flow run from its (resumed) parent. */
export function resumeChild(options: ResumeOptions, child: ChildContext): Promise<RunOutcome> {
  return resumeWith(
    options,
    child.agents,
    child,
    () => {},
    () => {},
  );
}

async function resumeWith(
  options: ResumeOptions,
  agents: AgentServices,
  child: ChildContext | undefined,
  onSet: (set: DefinitionSet, dotenv: DotenvLayers | undefined) => void,
  onProfile: (profile: ProjectProfile | undefined) => void,
): Promise<RunOutcome> {
  // Nothing of the run is touched (not even a torn line of its log) while another process drives it.
  const found = await readRunRecord(options.home, options.runId);
  if (found.parent !== undefined && child === undefined) {
    throw new UsageError('FLOW_RUN_IS_SUBFLOW', `run ${found.runId} is a sub-flow of run ${found.parent.runId}`, {
      hint: `resume the parent: neo flow resume ${found.parent.runId}`,
    });
  }
  if (found.pid !== process.pid && driverAlive(found) && (found.status === 'running' || found.status === 'waiting')) {
    throw new UsageError(
      'FLOW_RUN_LIVE',
      `run ${found.runId} is still being driven by process ${describeProcess({ pid: found.pid!, ...defined({ start: found.pidStart }) })}`,
      { hint: `answer its approvals with \`neo flow approve\`, or stop that process first (kill ${found.pid})` },
    );
  }
  const depth = child === undefined ? 0 : child.link.depth + 1;
  const notice = (level: 'info' | 'warning', message: string) =>
    options.observer?.({ type: 'notice', runId: found.runId, depth, level, message });
  // What the dead driver left running (its agent CLI, a command it ran) is stopped before
  // anything touches the workspace again: a resumed step must never run beside its orphan.
  if (child === undefined) {
    for (const line of await tidyRuns(options.home, found.runId)) notice('warning', line);
    await sweepRunLitter(options.home, found.runId);
  }
  // A driver killed with -9 could not record its end: the interruption is recorded first, so the
  // log says why the run stopped before it says it resumed.
  await settleAbandoned(options.home, found, {
    onTakeOver: (holder) => notice('info', takeOverNotice(`run ${found.runId}`, holder)),
  });
  // Throws STORE_TAMPERED (naming the file and line) unless the run's files check (run.json's
  // MAC, the event chain, plan.json against its pin): nothing of a tampered run is resumed.
  const { store, record, plan: pinned, events } = await RunStore.open(options.home, found.runId);
  try {
    const runId = record.runId;
    const rerun = options.rerun ?? [];
    if (record.status === 'succeeded' && rerun.length === 0) {
      throw new UsageError('FLOW_RUN_FINISHED', `run ${runId} already succeeded; nothing to resume`, {
        hint: 'run a step again with --rerun <step>',
      });
    }
    for (const id of rerun) {
      if (!pinned.steps.some((s) => s.id === id)) {
        const suggestion = didYouMean(
          id,
          pinned.steps.map((s) => s.id),
        );
        throw new UsageError('FLOW_UNKNOWN_STEP', `--rerun names unknown step \`${id}\``, {
          hint: suggestion ? `did you mean \`${suggestion}\`?` : `steps: ${pinned.steps.map((s) => s.id).join(', ')}`,
        });
      }
    }
    const state = replay(initialRunState(runId, []), events);

    const set = child?.set ?? (await currentDefinitions(record, options, notice));
    set.assertOwnerPolicy();
    // A resume is a new start the user decided on: the .env files are read again now, with the
    // definitions, as `neo flow run` reads them (never stored with the run: they hold secrets;
    // the project's is pinned by a keyed MAC, refused below when it changed).
    // A sub-flow's agents are its parent's, which read them already.
    const dotenv =
      child === undefined
        ? await readDotenvLayers({ cwd: dirname(resolve(options.cwd, record.planFile)), home: options.home })
        : undefined;
    onSet(set, dotenv);
    let plan: CompiledPlan = pinned;
    let rebased: Extract<RunInput, { type: 'resume' }>['rebased'];
    const changedDotenv =
      dotenv === undefined ? undefined : changedProjectDotenv(options.home, record.manifest.projectDotenv, dotenv);
    const changed = changedDefinitions(record.manifest.definitions, set);
    if (child === undefined && !options.rebaseDefinitions) refuseChangedAtRunTime(record, set, changedDotenv);
    // Taken knowingly, or read for the first time (the project was trusted since the run
    // started): what later resumes compare with.
    if (dotenv !== undefined && (changedDotenv !== undefined || record.manifest.projectDotenv === undefined))
      record.manifest = { ...record.manifest, ...defined({ projectDotenv: pinProjectDotenv(options.home, dotenv) }) };
    if (changedDotenv !== undefined) notice('info', `resuming with the current ${changedDotenv}`);
    if (changed.length > 0 && child === undefined) {
      if (options.rebaseDefinitions) {
        const compiled = compileFlowFile(set, record.planFile, {
          home: options.home,
          ...defined({ backendOverride: record.options.backend }),
          requireBackend: true,
        });
        assertCompiled(compiled.problems, record.planFile);
        const merged = mergePlan(
          pinned,
          compiled.plan,
          state,
          (id) => state.steps.get(id)?.status === 'succeeded' && !rerun.includes(id),
        );
        plan = merged.plan;
        rebased = {
          hash: planHash(compiled.plan),
          added: merged.added,
          removed: merged.removed,
          changed: merged.changed,
        };
        record.manifest = {
          ...record.manifest,
          setHash: set.hash,
          planHash: planHash(plan),
          definitions: compiled.pinned,
        };
        store.pinPlan(plan);
        notice('info', `rebased on the current definitions (${changed.join(', ')})`);
      } else {
        notice(
          'warning',
          `definitions changed since the run started: ${changed.join(', ')}; resuming with the pinned plan (pass --rebase-definitions to use the current files)`,
        );
      }
    }
    await requirePlanSandboxes(plan);
    requirePlanSecrets({ plan, children: {} });
    // The steps this resume may run (not succeeded — one skipped after a failure is decided again —,
    // named by --rerun, or after one that is) on a backend that could start here, or nothing runs
    // (a sub-flow's are its own resume's to ask).
    if (child === undefined && options.sessions === undefined) {
      const again = (step: CompiledPlan['steps'][number]) =>
        rerun.includes(step.id) || step.reach.some((id) => rerun.includes(id));
      const pending = plan.steps.filter((step) => state.steps.get(step.id)?.status !== 'succeeded' || again(step));
      await requirePlanBackends({ plan: { ...plan, steps: pending }, children: {} }, set, {
        configs: set.configs,
        ...defined({ dotenv }),
        env: process.env,
      });
    }
    // Capabilities are detected again too, from the plan's project as it is now (a sub-flow's
    // sessions are its parent's, which detected them): a new start, like `neo flow run`'s.
    if (child === undefined) onProfile(await detectRunProfile({ home: options.home, plan, set, env: process.env }));
    if (record.workspace === undefined) throw new NeoError('STORE_CORRUPT', `run ${runId} has no workspace record`);
    const workspace =
      child !== undefined
        ? borrowedWorkspace(child.workspace)
        : await reopenWorkspace(record.workspace, options.home, runId);
    const now = new Date().toISOString();
    const resumedRecord: RunRecord = {
      ...record,
      status: 'running',
      ...driverFields(),
      updatedAt: now,
      segments: [
        ...record.segments,
        {
          ...driverFields(),
          startedAt: now,
          ...(rerun.length > 0 ? { rerun } : {}),
          ...(rebased ? { rebased: true } : {}),
          ...(options.yes ? { yes: true } : {}),
        },
      ],
    };
    await reopenFinishedApprovals(options.home, plan, state);
    store.saveRecord(resumedRecord);
    options.observer?.({ type: 'run', runId, depth, record: resumedRecord, plan, resumed: true });
    for (const warning of workspace.warnings) notice('warning', warning);
    const backend = record.options.backend;
    const result = await drive({
      home: options.home,
      plan,
      state,
      // A process killed before the run's first event left nothing to resume: start it now, with
      // the inputs and workspace the record pinned.
      boot:
        events.length === 0
          ? {
              type: 'start',
              inputs: record.inputs,
              run: {
                id: runId,
                workspace: workspace.record.path,
                projectDir: plan.projectDir,
                ...defined({ branch: workspace.record.branch }),
              },
            }
          : { type: 'resume', rerun, ...defined({ rebased }) },
      store,
      record: resumedRecord,
      workspace,
      set: () => set,
      agents,
      yes: options.yes === true,
      ...defined({ observer: options.observer, prompter: options.prompter, signal: options.signal }),
      ...(child === undefined ? {} : { parent: child.link }),
      subflow: (spec, step, signal, link) =>
        runSubflow(
          {
            options: { ...options, planFile: record.planFile },
            set,
            agents,
            workspace: workspace.record,
            ...defined({ backend }),
          },
          spec,
          step,
          signal,
          link,
        ),
    });
    return outcomeOf(result);
  } catch (error) {
    // Refused before it drove (finished, an unknown --rerun step, a sandbox missing): the log is let go.
    await store.close().catch(() => undefined);
    throw error;
  }
}

/** The definitions to resume with: the plan file's, or the base layers when the file is gone. */
async function currentDefinitions(
  record: RunRecord,
  options: ResumeOptions,
  notice: (level: 'info' | 'warning', message: string) => void,
): Promise<DefinitionSet> {
  try {
    return (await loadPlanDefinitions({ planFile: record.planFile, cwd: options.cwd, home: options.home })).set;
  } catch (error) {
    if (options.rebaseDefinitions) throw error;
    notice(
      'warning',
      `${record.planFile} cannot be read (${error instanceof Error ? error.message : String(error)}); resuming with the pinned plan`,
    );
    return (await loadDefinitions({ cwd: options.cwd, home: options.home })).set;
  }
}
