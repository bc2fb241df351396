/**
 * The capability step of a start (seed 004 §9), right before the transport starts and only when
 * the caller named a cwd: curation is per project, and a start without one would scan wherever
 * neo happens to run. The plan goes to the transport; the record's `provision` says what was
 * detected, applied, ignored (with why), deferred and the token-scope caveats.
 * NEO_CAPABILITIES=off turns the step off.
 */
import {
  capabilitiesEnabled,
  githubSkillFetcher,
  neoCommand,
  resolveSessionProvision,
  type ProjectProfile,
  type ProvisionMeta,
} from '../../capabilities/index.js';
import type { Backend, DefinitionSet } from '../../definitions/index.js';
import type { ProvisionPlan, SessionSandbox } from '../../transports/index.js';

export interface ProvisionStepInput {
  home: string;
  cwd: string;
  definitions: DefinitionSet;
  descriptor: Backend;
  sessionId: string;
  sessionDir: string;
  env: NodeJS.ProcessEnv;
  sandbox?: SessionSandbox;
  /** The run's profile (OpContext.projectProfile): the workspace is then not read for it. */
  profile?: ProjectProfile;
}

export async function provisionStep(
  input: ProvisionStepInput,
): Promise<{ plan: ProvisionPlan | undefined; meta: ProvisionMeta } | undefined> {
  if (!capabilitiesEnabled(input.env)) return undefined;
  return resolveSessionProvision({
    home: input.home,
    cwd: input.cwd,
    definitions: input.definitions,
    protocol: input.descriptor.protocol,
    sessionDir: input.sessionDir,
    sessionId: input.sessionId,
    env: input.env,
    ...(input.profile === undefined ? {} : { profile: input.profile }),
    ...(input.sandbox === undefined
      ? {}
      : { sandbox: { network: input.sandbox.network, confined: input.sandbox.kind !== 'none' } }),
    fetchSkill: githubSkillFetcher({
      ...(input.env.NEO_GITHUB_API_URL ? { baseUrl: input.env.NEO_GITHUB_API_URL } : {}),
      ...(input.env.GITHUB_TOKEN ? { token: input.env.GITHUB_TOKEN } : {}),
    }),
    neoCommand: neoCommand(),
  });
}
