import {
  buildProjectProfile,
  capabilitiesEnabled,
  catalogEntries,
  neoCommand,
  resolveSessionProvision,
  type ProvisionMeta,
} from '../../engine/capabilities/index.js';
import type { Backend, DefinitionSet } from '../../engine/definitions/index.js';
import type { StepDescription } from '../../engine/flow/index.js';

/**
 * What capability curation would give each agent step of a dry run: the project's profile gated
 * and planned for the step's backend and sandbox, with nothing written, fetched or requested.
 */
export async function dryRunCapabilities(
  steps: readonly StepDescription[],
  options: { projectDir: string; home: string; set: DefinitionSet; env: NodeJS.ProcessEnv },
): Promise<Record<string, ProvisionMeta>> {
  const out: Record<string, ProvisionMeta> = {};
  if (!capabilitiesEnabled(options.env)) return out;
  // The profile a run started now would detect once and hand to all its agent steps
  // (engine/flow/runtime/run-profile.ts): the plan's project, the set's catalog; read on the
  // first agent step, as a plan without one detects nothing.
  let profile: ReturnType<typeof buildProjectProfile> | undefined;
  // What a step gets depends only on its backend's protocol and its sandbox's network: one
  // resolution per pair, not per step.
  const resolved = new Map<string, Promise<ProvisionMeta>>();
  const resolve = (protocol: Backend['protocol'], sandbox: { network: boolean } | undefined) => {
    const key = `${protocol}|${sandbox?.network ?? 'none'}`;
    const known = resolved.get(key);
    // A later step's profile is the one read for the first: cached, as a real start would find it.
    if (known !== undefined) return known.then((meta) => ({ ...meta, profileCached: true }));
    profile ??= buildProjectProfile(options.home, options.projectDir, catalogEntries(options.set));
    const meta = profile
      .then((detected) =>
        resolveSessionProvision({
          home: options.home,
          cwd: options.projectDir,
          definitions: options.set,
          protocol,
          sessionDir: options.home,
          env: options.env,
          neoCommand: neoCommand(),
          materialize: false,
          profile: detected,
          ...(sandbox === undefined ? {} : { sandbox }),
        }),
      )
      .then((result) => result.meta);
    resolved.set(key, meta);
    return meta;
  };
  const visit = async (step: StepDescription, path: string) => {
    const descriptor = step.backend === undefined ? undefined : options.set.get('backend', step.backend);
    if (step.kind === 'agent' && descriptor !== undefined) {
      const sandbox = step.sandbox?.startsWith('bwrap') ? { network: step.sandbox.includes('+net') } : undefined;
      out[`${path}${step.id}`] = await resolve((descriptor.data as Backend).protocol, sandbox);
    }
    for (const child of step.subflow?.steps ?? []) await visit(child, `${path}${step.id}/`);
  };
  for (const step of steps) await visit(step, '');
  return out;
}
