import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POSTURES, postureWithin } from '../../../engine/posture/index.js';
import {
  effectivePersonaKnobs,
  loadDefinitions,
  personaView,
  type DefinitionKind,
  type DefinitionSet,
  type Diagnostic,
  type Posture,
} from '../../../engine/definitions/index.js';
import { packageRoot } from '../../../engine/util/package-root.js';
import { tempDir } from '../../helpers/temp.js';

/** The packaged layer alone: an empty NEO_HOME and an empty project folder. */
let set: DefinitionSet;
let diagnostics: Diagnostic[];
const savedHome = process.env.NEO_HOME;

beforeAll(async () => {
  const home = await tempDir();
  const cwd = await tempDir();
  process.env.NEO_HOME = home;
  ({ set, diagnostics } = await loadDefinitions({ cwd, home }));
});

afterAll(() => {
  if (savedHome === undefined) delete process.env.NEO_HOME;
  else process.env.NEO_HOME = savedHome;
});

const IDS: Partial<Record<DefinitionKind, string[]>> = {
  backend: ['claude-code', 'codex', 'copilot', 'droid', 'gemini', 'neo', 'opencode', 'script'],
  policy: ['autonomous', 'careful', 'read-only', 'standard'],
  capability: [
    'docker-compose',
    'github',
    'neo-memory',
    'playwright',
    'postgres',
    'prisma',
    'sentry',
    'stripe',
    'supabase',
    'supabase-mcp',
  ],
  routing: ['default'],
  persona: ['code-specialist', 'implementer', 'planner', 'reviewer', 'test-writer'],
  flow: [],
};

const MODELINE_KIND: Record<string, string> = {
  backend: 'backend',
  policy: 'policy',
  capability: 'capability',
  routing: 'routing',
};

describe('packaged definitions', () => {
  it('load with zero diagnostics', () => {
    expect(diagnostics).toEqual([]);
  });

  it('have exactly the expected ids per kind, all from the packaged layer', () => {
    for (const [kind, ids] of Object.entries(IDS) as Array<[DefinitionKind, string[]]>) {
      expect(set.ids(kind), kind).toEqual(ids);
      for (const definition of set.list(kind)) expect(definition.layer).toBe('packaged');
    }
  });

  it('start every YAML file with the schema modeline', async () => {
    for (const kind of Object.keys(MODELINE_KIND) as DefinitionKind[]) {
      for (const definition of set.list(kind)) {
        const first = (await readFile(definition.file, 'utf8')).split('\n')[0];
        expect(first, relative(packageRoot(), definition.file)).toBe(
          `# yaml-language-server: $schema=../../schemas/${MODELINE_KIND[kind]}.schema.json`,
        );
      }
    }
  });
});

describe('backend descriptors', () => {
  it('map only real postures, and every mode table agrees with its posture map', () => {
    for (const backend of set.list('backend')) {
      for (const key of Object.keys(backend.data.postureMap))
        expect(POSTURES, `${backend.id}.postureMap.${key}`).toContain(key);
      for (const [key, mode] of Object.entries(backend.data.modes ?? {})) {
        expect(POSTURES, `${backend.id}.modes.${key}`).toContain(key);
        expect(backend.data.postureMap[key as Posture]?.mode, `${backend.id}.modes.${key}`).toBe(mode);
      }
      expect(
        typeof (backend.data as unknown as Record<string, unknown>)['x-evidence'],
        `${backend.id} x-evidence`,
      ).toBe('string');
    }
  });

  it('launch each ACP agent with its own ACP argv; in-process backends have no command', () => {
    const argv = Object.fromEntries(
      set
        .list('backend')
        .map((b) => [
          b.id,
          b.data.command ? [b.data.protocol, b.data.command.bin, ...(b.data.command.args ?? [])] : [b.data.protocol],
        ]),
    );
    expect(argv).toEqual({
      'claude-code': [
        'claude-code',
        'claude',
        '-p',
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--permission-prompt-tool',
        'stdio',
      ],
      codex: ['codex', 'codex', 'app-server'],
      copilot: ['acp', 'copilot', '--acp'],
      droid: ['acp', 'droid', 'exec', '--output-format', 'acp'],
      gemini: ['acp', 'gemini', '--acp'],
      neo: ['neo'],
      opencode: ['acp', 'opencode', 'acp', '--print-logs', '--log-level', 'ERROR'],
      script: ['script'],
    });
  });

  it("switch model per turn only on claude-code, codex and neo, and resolve the CLIs' classes to concrete ids", () => {
    const perTurn = set
      .list('backend')
      .filter((b) => b.data.modelSelection === 'per-turn')
      .map((b) => b.id);
    expect(perTurn).toEqual(['claude-code', 'codex', 'neo']);
    // neo's classes resolve through neo.yaml's provider models (seed 004 §10), so its map stays null.
    for (const id of perTurn.filter((b) => b !== 'neo')) {
      const map = set.get('backend', id)!.data.modelClassMap!;
      for (const cls of ['cheap', 'standard', 'frontier'] as const)
        expect(typeof map[cls], `${id}.${cls}`).toBe('string');
    }
    const codex = set.get('backend', 'codex')!.data;
    for (const model of Object.values(codex.modelClassMap!))
      expect(codex.pricing?.[model as string], `price of ${String(model)}`).toBeDefined();
  });

  it('offer terminal attach only where the research shows the command', () => {
    const attach = Object.fromEntries(
      set
        .list('backend')
        .filter((b) => b.data.externalAttach)
        .map((b) => [b.id, b.data.externalAttach!.commandTemplate]),
    );
    expect(attach).toEqual({
      'claude-code': 'claude --resume {sessionId}',
      codex: 'codex resume {sessionId}',
      opencode: 'opencode "{cwd}" --session {sessionId}',
    });
  });

  it('describe the script backend as a free, model-less replay that honours every posture', () => {
    const script = set.get('backend', 'script')!.data;
    expect({
      postures: Object.keys(script.postureMap),
      clarifySupport: script.clarifySupport,
      granularity: script.granularity,
      costProfile: script.costProfile,
      modelSelection: script.modelSelection,
      honorsAllowedTools: script.honorsAllowedTools,
      editToolNames: script.editToolNames,
    }).toEqual({
      postures: ['plan', 'default', 'acceptEdits', 'full'],
      clarifySupport: true,
      granularity: 'stream',
      costProfile: 'free',
      modelSelection: 'none',
      honorsAllowedTools: false,
      editToolNames: ['write', 'edit', 'delete', 'rename'],
    });
  });
});

describe('policies', () => {
  it('cap each session at the posture the policy is named for', () => {
    const caps = Object.fromEntries(set.list('policy').map((p) => [p.id, p.data.maxPosture]));
    expect(caps).toEqual({ 'read-only': 'plan', careful: 'default', standard: 'acceptEdits', autonomous: 'full' });
    for (const policy of set.list('policy')) {
      const { maxPosture, initialPosture, maxRounds, budgets } = policy.data;
      expect(postureWithin(initialPosture!, maxPosture!), policy.id).toBe(true);
      expect(maxRounds, policy.id).toBeGreaterThan(0);
      expect(budgets?.maxCostUsd, policy.id).toBeGreaterThan(0);
    }
  });
});

describe('personas', () => {
  it('make code-specialist the driver, narrowed from the standard policy', () => {
    const persona = set.get('persona', 'code-specialist')!;
    const view = personaView(persona);
    expect({ driver: view.driver, decide: view.decide, policy: view.policy, model: view.model }).toEqual({
      driver: true,
      decide: 'rules',
      policy: 'standard',
      model: 'frontier',
    });
    const { knobs, conflicts } = effectivePersonaKnobs(set, persona);
    expect(conflicts).toEqual([]);
    expect(knobs).toEqual({
      maxPosture: 'acceptEdits',
      initialPosture: 'default',
      maxRounds: 8,
      budgets: set.get('policy', 'standard')!.data.budgets,
    });
  });

  it('give the driver rules that name real backends, deny before they allow, and verify', () => {
    const rules = set.get('persona', 'code-specialist')!.data.rules!;
    for (const id of rules.prefer!) expect(set.has('backend', id), id).toBe(true);
    expect(rules.otherwise).toBe('deny');
    expect(rules.verify).toBe('npm test');
    expect(rules.gateGuidance).toContain('{output}');
    const decisions = rules.clarify!.map((r) => r.decision);
    expect(decisions.lastIndexOf('deny')).toBeLessThan(decisions.indexOf('allow'));
    const denied = rules.clarify!.filter((r) => r.decision === 'deny' && r.command).map((r) => r.command!);
    const allowed = rules.clarify!.filter((r) => r.decision === 'allow' && r.command).map((r) => r.command!);
    expect(denied).toEqual(expect.arrayContaining(['rm -r', 'git push', 'git reset --hard', 'sudo']));
    expect(allowed).toEqual(expect.arrayContaining(['npm test *', 'git diff *']));
    for (const allow of allowed)
      for (const deny of denied) expect(allow.startsWith(deny), `${allow} vs ${deny}`).toBe(false);
  });

  it('keep role personas non-drivers with tools, a model class and a fitting ceiling', () => {
    const roles = Object.fromEntries(
      ['planner', 'implementer', 'reviewer', 'test-writer'].map((id) => {
        const view = personaView(set.get('persona', id)!);
        return [
          id,
          { driver: view.driver, model: view.model, maxPosture: view.knobs.maxPosture, tools: view.knobs.allowedTools },
        ];
      }),
    );
    expect(roles).toEqual({
      planner: { driver: false, model: 'frontier', maxPosture: 'plan', tools: ['Read', 'Grep', 'Glob'] },
      implementer: {
        driver: false,
        model: 'standard',
        maxPosture: 'acceptEdits',
        tools: ['Read', 'Grep', 'Glob', 'Edit', 'Write', 'Bash'],
      },
      reviewer: { driver: false, model: 'frontier', maxPosture: 'plan', tools: ['Read', 'Grep', 'Glob'] },
      'test-writer': {
        driver: false,
        model: 'standard',
        maxPosture: 'acceptEdits',
        tools: ['Read', 'Grep', 'Glob', 'Edit', 'Write', 'Bash'],
      },
    });
  });
});

describe('routing guidance', () => {
  it('covers every task class for both cost profiles', () => {
    const classes = set.get('routing', 'default')!.data.taskClasses;
    expect(Object.keys(classes)).toEqual(
      expect.arrayContaining(['bugfix', 'feature', 'refactor', 'review', 'docs', 'test-writing', 'exploration']),
    );
    for (const [name, advice] of Object.entries(classes)) {
      for (const profile of ['subscription', 'metered'] as const) {
        expect(['cheap', 'standard', 'frontier'], `${name}.${profile}`).toContain(advice[profile].modelClass);
        expect(advice[profile].note, `${name}.${profile}.note`).toBeTruthy();
      }
    }
  });
});

describe('capability catalog', () => {
  it('pins every source exactly, by tier', () => {
    const sources = Object.fromEntries(
      set.list('capability').map((c) => [c.id, [c.data.trustTier, c.data.source.kind]]),
    );
    expect(sources).toEqual({
      'docker-compose': ['T0', 'builtin'],
      github: ['T2R', 'remote'],
      'neo-memory': ['T0', 'builtin'],
      playwright: ['T2', 'npm'],
      postgres: ['T0', 'builtin'],
      prisma: ['T1', 'github'],
      sentry: ['T2', 'npm'],
      stripe: ['T2R', 'remote'],
      supabase: ['T1', 'github'],
      'supabase-mcp': ['T2', 'npm'],
    });
    for (const capability of set.list('capability')) {
      const source = capability.data.source;
      if (source.kind === 'github') expect(source.commitSha, capability.id).toMatch(/^[0-9a-f]{40}$/);
      if (source.kind === 'npm') {
        // The npx command runs the very version the catalog pins, never "latest".
        const args = Object.values(capability.data.provides.mcpServers ?? {}).flatMap((server) => server.args ?? []);
        expect(args, capability.id).toContain(`${source.package}@${source.version}`);
      }
    }
  });

  it('declares every ${VAR} its servers read in authEnv', () => {
    for (const capability of set.list('capability')) {
      const text = JSON.stringify(capability.data.provides.mcpServers ?? {});
      const used = [...text.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]);
      expect(capability.data.authEnv ?? [], capability.id).toEqual(expect.arrayContaining(used));
    }
  });
});
