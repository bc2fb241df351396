/**
 * Capability detection, the approval ledger and the catalog commands through the neo binary:
 * every rule kind against a fixture repository, the cached profile, approve / revoke, and a pin
 * bump asking again.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runNeo } from '../helpers/cli.js';
import { tempDir, writeTree } from '../helpers/temp.js';
import { git } from './flow-helpers.js';

const USER_ENTRIES: Record<string, string> = {
  'go-pq.yaml':
    'description: go pq\ntrustTier: T0\nsource: { kind: builtin }\ndetect: [{ packageDep: github.com/lib/pq }]\nprovides: { instructions: pq }\n',
  'py-psycopg.yaml':
    'description: psycopg\ntrustTier: T0\nsource: { kind: builtin }\ndetect: [{ packageDep: Psycopg_Binary }]\nprovides: { instructions: py }\n',
  'rust-sqlx.yaml':
    'description: sqlx\ntrustTier: T0\nsource: { kind: builtin }\ndetect: [{ packageDep: sqlx }]\nprovides: { instructions: rs }\n',
  'prisma-pg.yaml':
    'description: regex\ntrustTier: T0\nsource: { kind: builtin }\ndetect: [{ fileContent: { path: prisma/schema.prisma, regex: "provider\\\\s*=\\\\s*\\"postgresql\\"" } }]\nprovides: { instructions: pg }\n',
  'absent.yaml':
    'description: never\ntrustTier: T0\nsource: { kind: builtin }\ndetect: [{ fileExists: "nothing/*.here" }, { packageDep: left-pad }]\nprovides: { instructions: no }\n',
  'tool-t3.yaml':
    'description: a third-party tool\ntrustTier: T3\nsource: { kind: npm, package: acme-tool, version: 1.0.0 }\ndetect: [{ fileExists: "tools/*.cfg" }]\nprovides: { mcpServers: { acme: { command: node, args: [server.js] } } }\n',
};

async function fixture() {
  const root = await tempDir('neo-e2e-capabilities-');
  const home = join(root, 'home');
  const repo = join(root, 'repo');
  await writeTree(join(home, 'definitions', 'capabilities'), USER_ENTRIES);
  await writeTree(repo, {
    'package.json': JSON.stringify({
      dependencies: { '@supabase/supabase-js': '2' },
      devDependencies: { stripe: '1' },
    }),
    'go.mod': 'module x\n\ngo 1.22\n\nrequire (\n\tgithub.com/lib/pq v1.10.9 // indirect\n)\n',
    'pyproject.toml': '[project]\nname = "x"\ndependencies = [\n  "psycopg-binary>=3",\n]\n',
    'Cargo.toml': '[package]\nname = "x"\n\n[dev-dependencies]\nsqlx = "0.7"\n',
    'prisma/schema.prisma': 'datasource db {\n  provider = "postgresql"\n}\n',
    '.github/workflows/release.yml': 'jobs:\n  r:\n    steps:\n      - uses: "getsentry/action-release@v1"\n',
    'compose.yaml': 'services:\n  db:\n    image: docker.io/library/postgres:16\n',
    'tools/acme.cfg': 'x\n',
    'supabase/config.toml': '',
  });
  await git(repo, 'init', '-q', '-b', 'main');
  const neo = async (...args: string[]) => {
    const result = await runNeo(args, { cwd: repo, env: { NEO_HOME: home } });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    return result.stdout;
  };
  return { root, home, repo, neo };
}

describe('neo capabilities detect', () => {
  it('matches every rule kind, with its evidence, and caches the profile until an input changes', async () => {
    const { repo, neo } = await fixture();
    const first = JSON.parse(await neo('capabilities', 'detect', '--json'));
    expect(first.cached).toBe(false);
    const evidence = Object.fromEntries(
      (first.detected as Array<{ id: string; evidence: string[]; status: string }>).map((d) => [d.id, d.evidence]),
    );
    expect(evidence).toEqual({
      'docker-compose': ['compose.yaml'],
      github: ['.github/workflows/release.yml'],
      'go-pq': ['go.mod: github.com/lib/pq'],
      'neo-memory': ['.git'],
      postgres: ['compose.yaml: image docker.io/library/postgres:16', 'prisma/schema.prisma contains "postgresql"'],
      prisma: ['prisma/schema.prisma'],
      'prisma-pg': ['prisma/schema.prisma matches /provider\\s*=\\s*"postgresql"/'],
      'py-psycopg': ['pyproject.toml: Psycopg_Binary'],
      'rust-sqlx': ['Cargo.toml: sqlx'],
      sentry: ['.github/workflows/release.yml: uses getsentry/action-release@v1'],
      stripe: ['package.json: stripe'],
      supabase: ['supabase/config.toml', 'package.json: @supabase/supabase-js'],
      'supabase-mcp': ['supabase/config.toml', 'package.json: @supabase/supabase-js'],
      'tool-t3': ['tools/acme.cfg'],
    });
    const status = Object.fromEntries(
      (first.detected as Array<{ id: string; status: string }>).map((d) => [d.id, d.status]),
    );
    expect(status).toMatchObject({ 'tool-t3': 'awaiting approval', sentry: 'awaiting approval', stripe: 'passes' });

    expect(JSON.parse(await neo('capabilities', 'detect', '--json')).cached).toBe(true);
    await writeFile(join(repo, 'package.json'), JSON.stringify({ dependencies: {} }));
    const changed = JSON.parse(await neo('capabilities', 'detect', '--json'));
    expect(changed.cached).toBe(false);
    const ids = (changed.detected as Array<{ id: string }>).map((d) => d.id);
    expect(ids).not.toContain('stripe');
    expect(ids).toContain('supabase');
  });

  it('approve binds to the pinned identity: a pin bump asks again; revoke removes it; T0 needs none', async () => {
    const { home, neo } = await fixture();
    expect(await neo('capabilities', 'show', 'tool-t3')).toMatch(/gate: {5}not approved/);
    expect(await neo('capabilities', 'approve', 'neo-memory')).toMatch(/T0: it needs no approval/);
    const approved = JSON.parse(await neo('capabilities', 'approve', 'tool-t3', '--json'));
    expect(approved).toMatchObject({
      id: 'tool-t3',
      approved: true,
      identity: expect.stringMatching(/^npm acme-tool@1\.0\.0 #/),
    });
    expect(await neo('capabilities', 'show', 'tool-t3')).toMatch(/gate: {5}approved .* by cli/);
    expect(JSON.parse(await neo('capabilities', 'detect', '--json')).detected).toContainEqual(
      expect.objectContaining({ id: 'tool-t3', status: 'approved' }),
    );

    // A pin bump is a new identity: the old approval does not cover it.
    await writeFile(
      join(home, 'definitions', 'capabilities', 'tool-t3.yaml'),
      USER_ENTRIES['tool-t3.yaml']!.replace('version: 1.0.0', 'version: 1.0.1'),
    );
    expect(await neo('capabilities', 'show', 'tool-t3')).toMatch(
      /approval is for another pin \(npm acme-tool@1\.0\.0 #\w+\): asks again/,
    );
    expect(JSON.parse(await neo('capabilities', 'detect', '--json')).detected).toContainEqual(
      expect.objectContaining({ id: 'tool-t3', status: 'awaiting approval' }),
    );
    expect(JSON.parse(await neo('capabilities', 'revoke', 'tool-t3', '--json'))).toEqual({
      id: 'tool-t3',
      revoked: true,
      declined: false,
    });
    expect(await neo('capabilities', 'show', 'tool-t3')).toMatch(/gate: {5}not approved/);
  });

  it('a forged ledger entry (no valid MAC) approves nothing; an unknown id is a usage error', async () => {
    const { home, neo, repo } = await fixture();
    const identity = JSON.parse(await neo('capabilities', 'show', 'tool-t3', '--json')).identity as string;
    await writeTree(join(home, 'capabilities'), {
      'ledger.json': JSON.stringify({
        version: 1,
        approvals: { 'tool-t3': { identity, approvedAt: '2026-01-01T00:00:00.000Z', by: 'me', mac: '00'.repeat(32) } },
      }),
    });
    expect(await neo('capabilities', 'show', 'tool-t3')).toMatch(/gate: {5}not approved/);
    const unknown = await runNeo(['capabilities', 'show', 'tool-t4'], { cwd: repo, env: { NEO_HOME: home } });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/CAPABILITY_UNKNOWN.*no capability `tool-t4`[\s\S]*did you mean `tool-t3`/);
  });
});
