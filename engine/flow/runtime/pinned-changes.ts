import type { DefinitionSet } from '../../definitions/index.js';
import { UsageError } from '../../util/errors.js';
import type { PinnedDefinition, RunRecord } from '../store/run-files.js';
import { flowAt, PINNED_CONFIG_LAYERS } from './load-plan.js';

/** A pinned definition (or a project neo.yaml that was not there) and how it differs now. */
interface Change {
  pin: PinnedDefinition;
  /** '' changed, ' (removed)', ' (added)'. */
  how: string;
}

/**
 * The pinned plan holds the run's own flow and the policies' knobs, but a resumed run reads its
 * sub-flows (one not yet started is compiled when its step runs), driver personas, backends, the
 * project's neo.yaml and `.env` (the provider neo's own agent talks to, and the key it sends)
 * from the current files. In `inplace` isolation those files are the workspace the run's
 * sandboxed steps wrote, so a changed one is never taken silently as "the pinned plan": the
 * user resumes on the current files knowingly (`--rebase-definitions`) or not at all.
 * `changedDotenv` is the project `.env` whose variables differ from the run's MAC of them.
 */
export function refuseChangedAtRunTime(record: RunRecord, set: DefinitionSet, changedDotenv?: string): void {
  const named = changes(record.manifest.definitions, set)
    .filter(({ pin }) => pin.kind !== 'policy' && !(pin.kind === 'flow' && pin.file === record.planFile))
    .map(({ pin, how }) => `${pin.kind} ${pin.id}${how} (${pin.file})`);
  if (changedDotenv !== undefined) named.push(`the project's .env (${changedDotenv})`);
  if (named.length === 0) return;
  throw new UsageError(
    'FLOW_DEFINITIONS_CHANGED',
    `definitions the run reads when its steps run changed since it started: ${named.join(', ')}; a step of the run may have written them`,
    {
      hint: 'review the change (git diff), then restore the files, or resume on them knowingly with --rebase-definitions',
    },
  );
}

/** `kind id` of every pinned definition whose file changed or disappeared, and every project neo.yaml added. */
export function changedDefinitions(pinned: readonly PinnedDefinition[], set: DefinitionSet): string[] {
  return changes(pinned, set).map(({ pin, how }) => `${pin.kind} ${pin.id}${how}`);
}

function changes(pinned: readonly PinnedDefinition[], set: DefinitionSet): Change[] {
  const out: Change[] = [];
  for (const pin of pinned) {
    const how = changeOf(pin, set);
    if (how !== undefined) out.push({ pin, how });
  }
  // A neo.yaml of a pinned layer that the run did not see: a step may have planted it.
  for (const config of set.configs) {
    if (!PINNED_CONFIG_LAYERS.has(config.layer)) continue;
    if (pinned.some((pin) => pin.kind === 'config' && pin.file === config.file)) continue;
    out.push({ pin: { kind: 'config', id: config.layer, file: config.file, digest: config.digest }, how: ' (added)' });
  }
  return out;
}

/** '' when a pinned definition's file changed, ' (removed)' when it is gone, undefined when it is as pinned. */
function changeOf(pin: PinnedDefinition, set: DefinitionSet): string | undefined {
  const now =
    pin.kind === 'flow'
      ? flowAt(set, pin.file)
      : pin.kind === 'config'
        ? set.configs.find((config) => config.file === pin.file)
        : pin.kind === 'policy' && pin.id === 'owner'
          ? set.ownerPolicy
          : set.get(pin.kind as 'persona', pin.id);
  if (now === undefined) return ' (removed)';
  return now.digest === pin.digest ? undefined : '';
}
