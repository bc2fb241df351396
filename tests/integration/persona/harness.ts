/** A persona run against the real session service and the real script backend, in temp dirs. */
import { afterEach } from 'vitest';
import { loadDefinitions, type DefinitionSet } from '../../../engine/definitions/index.js';
import {
  loadPersona,
  runPersona,
  type PersonaObservation,
  type PersonaRunResult,
  type RunPersonaOptions,
} from '../../../engine/persona/index.js';
import { createSessionService, silentLog, type SessionService } from '../../../engine/session/index.js';
import { tempDir, writeTree } from '../../helpers/temp.js';

const services: SessionService[] = [];
afterEach(async () => {
  while (services.length > 0) await services.pop()!.close();
});

export interface PersonaHarness {
  home: string;
  cwd: string;
  scripts: string;
  set: DefinitionSet;
  service: SessionService;
  run(
    id: string,
    options?: Partial<RunPersonaOptions>,
  ): Promise<{ result: PersonaRunResult; seen: PersonaObservation[] }>;
}

/** NEO_HOME with `agents` (persona files) and `files` (anything else), a working tree, a service. */
export async function personaHarness(
  setup: { agents?: Record<string, string>; files?: Record<string, string>; env?: NodeJS.ProcessEnv } = {},
): Promise<PersonaHarness> {
  const home = await tempDir('neo-persona-home-');
  const cwd = await tempDir('neo-persona-cwd-');
  const scripts = await tempDir('neo-persona-scripts-');
  process.env.NEO_HOME = home;
  const tree: Record<string, string> = { ...(setup.files ?? {}) };
  for (const [id, text] of Object.entries(setup.agents ?? {})) tree[`agents/${id}.md`] = text;
  await writeTree(home, tree);
  const { set, diagnostics } = await loadDefinitions({ cwd, home });
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0)
    throw new Error(`bad test definitions: ${errors.map((d) => `${d.span?.file ?? '?'}: ${d.message}`).join('; ')}`);
  const service = createSessionService({ home, definitions: set, defaultCwd: cwd, log: silentLog });
  services.push(service);
  return {
    home,
    cwd,
    scripts,
    set,
    service,
    async run(id, options = {}) {
      const seen: PersonaObservation[] = [];
      const result = await runPersona({
        home,
        set,
        persona: loadPersona(set, id),
        brief: 'Make `node check.js` pass.',
        cwd,
        sessions: service,
        observe: (o) => seen.push(o),
        ...options,
      });
      return { result, seen };
    },
  };
}

/** The observations without the noisy raw agent events, as short strings. */
export function digest(seen: readonly PersonaObservation[]): string[] {
  return seen.flatMap((o): string[] => {
    switch (o.type) {
      case 'selected':
        return [`selected ${o.plan.backend}`];
      case 'started':
        return [
          `started ${o.session.backend} ${o.session.posture}<=${o.session.maxPosture} rounds ${o.session.maxRounds}`,
        ];
      case 'rejected':
        return [`rejected ${o.rejection.backend} ${o.rejection.code}`];
      case 'turn':
        return [`turn ${o.kind}`];
      case 'answered':
        return [`${o.answer.allow ? 'allow' : 'deny'} ${o.toolName} by ${o.answer.by}`];
      case 'checked':
        return [`check ${o.check.passed ? 'passed' : 'failed'}`];
      case 'judged':
        return [o.judgement.kind === 'guide' ? 'judged guide' : `judged stop ${o.judgement.outcome}`];
      case 'settled':
        return [`settled ${o.verdict.outcome}`];
      default:
        return [];
    }
  });
}
