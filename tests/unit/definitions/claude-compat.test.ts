import { mkdir, readdir, copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadDefinitionFile,
  loadDefinitions,
  personaView,
  type Definition,
  type SessionKnobs,
} from '../../../engine/definitions/index.js';
import { tempDir } from '../../helpers/temp.js';

/** Claude Code subagent files in the shapes people publish, loaded unchanged as personas. */
const FIXTURES = fileURLToPath(new URL('../../fixtures/claude-agents/', import.meta.url));

interface Expected {
  id: string;
  description: string;
  model?: string;
  knobs: SessionKnobs;
  disallowedTools?: string[];
  /** The first line of the body: the instructions survive untouched. */
  firstLine: string;
  /** Claude-only keys neo keeps as written (hooks, mcpServers, skills, ...). */
  data?: Record<string, unknown>;
}

const EXPECTED: Record<string, Expected> = {
  'code-reviewer.md': {
    id: 'code-reviewer',
    description:
      'Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.',
    model: 'standard',
    knobs: { allowedTools: ['Read', 'Grep', 'Glob', 'Bash'] },
    firstLine: 'You are a senior code reviewer ensuring high standards of code quality and security.',
  },
  'debugger.md': {
    id: 'debugger',
    description:
      'Debugging specialist for errors, test failures, and unexpected behavior. Use proactively when encountering any issues.',
    knobs: { allowedTools: ['Read', 'Edit', 'Bash', 'Grep', 'Glob'] },
    firstLine: 'You are an expert debugger specializing in root cause analysis.',
    data: { model: 'inherit', color: 'orange' },
  },
  'test-runner.md': {
    id: 'test-runner',
    description:
      'Use this agent to run the test suite after code changes: it runs the tests, reads failures and fixes them while preserving the original test intent.',
    model: 'cheap',
    knobs: { initialPosture: 'acceptEdits', maxRounds: 15, allowedTools: ['Bash', 'Read', 'Edit', 'Grep'] },
    firstLine: 'You are a test automation expert. When you see code changes, proactively run the appropriate',
    data: { color: 'green' },
  },
  'security-auditor.md': {
    id: 'security-auditor',
    description:
      'Reviews code for vulnerabilities and ensures OWASP compliance. Use PROACTIVELY for authentication flows, payment handling, file uploads and any code that touches user input.\n',
    model: 'frontier',
    knobs: { initialPosture: 'plan', maxRounds: 20, allowedTools: ['Read', 'Grep', 'Glob'] },
    disallowedTools: ['Write', 'Edit', 'Bash'],
    firstLine: 'You are a security auditor specializing in application security and secure coding practices.',
  },
  'data-scientist.md': {
    id: 'data-scientist',
    description:
      'Data analysis expert for SQL queries, BigQuery operations, and data insights. Use proactively for data analysis tasks and queries.',
    model: 'standard',
    knobs: { allowedTools: ['Bash', 'Read', 'Write'] },
    firstLine: 'You are a data scientist specializing in SQL and BigQuery analysis.',
    data: {
      mcpServers: {
        postgres: {
          command: 'npx',
          args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://localhost/analytics'],
        },
        warehouse: {
          type: 'http',
          url: 'https://warehouse.example.com/mcp',
          headers: { Authorization: 'Bearer ${WAREHOUSE_TOKEN}' },
        },
      },
    },
  },
  'docs-writer.md': {
    id: 'docs-writer',
    description: 'Writes and updates API documentation, READMEs and changelogs from the code as it is.',
    model: 'claude-sonnet-4-5-20250929',
    knobs: { initialPosture: 'default', allowedTools: ['Read', 'Grep', 'Glob', 'Write', 'Edit'] },
    firstLine: 'You are a technical writer. Document what the code does today, not what it should do.',
    data: { skills: ['api-docs', 'changelog'], memory: 'project' },
  },
  'frontend-developer.md': {
    id: 'frontend-developer',
    description:
      'Build React components, implement responsive layouts, and handle client-side state management. Use PROACTIVELY when creating UI components or fixing frontend issues.',
    knobs: {},
    firstLine: 'You are a frontend developer specializing in modern React applications and responsive design.',
    data: {
      mcpServers: ['playwright', { figma: { type: 'sse', url: 'http://127.0.0.1:3845/sse' } }],
      skills: 'browser-testing',
      isolation: 'worktree',
      background: true,
      color: 'cyan',
    },
  },
  'guarded-shell.md': {
    id: 'guarded-shell',
    description:
      'Runs project maintenance commands behind a validation hook; every Bash call is checked by a script first.',
    knobs: {
      initialPosture: 'default',
      maxRounds: 5,
      allowedTools: ['Read', 'Bash(npm test:*)', 'Bash(npm run lint:*)', 'Bash(git diff:*)'],
    },
    firstLine: 'Run only the commands you are allowed. If a command is blocked by the hook, read its message and',
    data: {
      permissionMode: 'dontAsk',
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'command', command: './scripts/validate-command.sh', timeout: 10 }] },
        ],
        PostToolUse: [
          { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write "$CLAUDE_FILE_PATHS"' }] },
        ],
      },
    },
  },
  'migration-runner.md': {
    id: 'migration-runner',
    description:
      'Applies large mechanical migrations (framework upgrades, codemods) inside a disposable container where nothing asks for permission.',
    model: 'frontier',
    knobs: { initialPosture: 'full', maxRounds: 50, allowedTools: ['Read', 'Edit', 'Write', 'Bash', 'Grep', 'Glob'] },
    firstLine: 'You run inside a throwaway container. Apply the migration recipe file by file, run the build after',
  },
  'explorer.md': {
    id: 'explorer',
    description:
      'Fast read-only codebase explorer. Answers "where is X handled?" and "what calls Y?" questions with file:line references.',
    model: 'cheap',
    knobs: { initialPosture: 'acceptEdits', allowedTools: ['Glob', 'Grep', 'Read', 'Agent(explorer)'] },
    firstLine: 'Search broadly first (Glob, Grep), then read only the files that matter. Answer with a short list',
  },
  'api-designer.md': {
    id: 'api-architect',
    description:
      'Designs REST and GraphQL APIs - resource models, versioning, pagination and error formats - and writes the OpenAPI document.',
    model: 'frontier',
    knobs: { initialPosture: 'default', maxRounds: 12, allowedTools: ['Read', 'Write', 'Edit', 'WebFetch'] },
    firstLine: 'Design the API contract before any implementation. Produce an OpenAPI 3.1 document, one example',
  },
  'release-notes.md': {
    id: 'release-notes',
    description: 'Drafts release notes from the merged pull requests since the last tag.',
    model: 'standard',
    knobs: { allowedTools: ['Bash', 'Read'] },
    firstLine: 'List the merged pull requests since the last tag with `git log --merges`, group them by',
  },
  'helper.md': {
    id: 'helper',
    description: 'Minimal agent with only a description; the file name is its id.',
    knobs: {},
    firstLine: 'Answer questions about this repository. Cite files as path:line.',
  },
};

const savedHome = process.env.NEO_HOME;
beforeAll(async () => {
  process.env.NEO_HOME = await tempDir();
});
afterAll(() => {
  if (savedHome === undefined) delete process.env.NEO_HOME;
  else process.env.NEO_HOME = savedHome;
});

async function load(name: string, trusted = true) {
  return loadDefinitionFile(join(FIXTURES, name), { kind: 'persona', layer: 'project', trusted });
}

describe('Claude Code subagent files load as personas', () => {
  it('covers every fixture file, and at least ten of them', async () => {
    const files = (await readdir(FIXTURES)).filter((f) => f.endsWith('.md')).sort();
    expect(files).toEqual(Object.keys(EXPECTED).sort());
    expect(files.length).toBeGreaterThanOrEqual(10);
  });

  for (const [file, expected] of Object.entries(EXPECTED)) {
    it(`${file} maps to id ${expected.id}`, async () => {
      const result = await load(file);
      expect(result.diagnostics).toEqual([]);
      const definition = result.definition as Definition<'persona'>;
      expect(definition.kind).toBe('persona');
      expect(definition.id).toBe(expected.id);

      const view = personaView(definition);
      expect({
        id: view.id,
        description: view.description,
        driver: view.driver,
        decide: view.decide,
        model: view.model,
        knobs: view.knobs,
        disallowedTools: view.disallowedTools,
        taskTags: view.taskTags,
      }).toEqual({
        id: expected.id,
        description: expected.description,
        driver: false,
        decide: 'rules',
        model: expected.model,
        knobs: expected.knobs,
        disallowedTools: expected.disallowedTools,
        taskTags: [],
      });
      expect(view.instructions.split(/\r?\n/)[0]).toBe(expected.firstLine);
      if (expected.data) expect(definition.data).toMatchObject(expected.data);
    });
  }

  it('keeps CRLF files intact: no carriage return leaks into the frontmatter values', async () => {
    const view = personaView((await load('release-notes.md')).definition as Definition<'persona'>);
    expect(view.description.includes('\r')).toBe(false);
    expect(view.knobs.allowedTools).toEqual(['Bash', 'Read']);
  });

  it('drops bypassPermissions from an untrusted project with a positioned warning', async () => {
    const result = await load('migration-runner.md', false);
    expect(
      result.diagnostics.map((d) => ({
        code: d.code,
        severity: d.severity,
        pointer: d.pointer,
        line: d.span?.start.line,
        column: d.span?.start.column,
      })),
    ).toEqual([{ code: 'DEF_UNTRUSTED_FIELD', severity: 'warning', pointer: '/permissionMode', line: 6, column: 17 }]);
    const definition = result.definition as Definition<'persona'>;
    expect(definition.ignoredFields).toEqual(['permissionMode']);
    const view = personaView(definition);
    expect(view.knobs).toEqual({ maxRounds: 50, allowedTools: ['Read', 'Edit', 'Write', 'Bash', 'Grep', 'Glob'] });
  });

  it('loads every fixture from <repo>/.claude/agents as the project layer', async () => {
    const repo = await tempDir();
    const home = await tempDir();
    await mkdir(join(repo, '.git'));
    await mkdir(join(repo, '.claude', 'agents'), { recursive: true });
    for (const file of Object.keys(EXPECTED))
      await copyFile(join(FIXTURES, file), join(repo, '.claude', 'agents', file));

    const { set, diagnostics } = await loadDefinitions({ cwd: repo, home });
    // The project is not trusted: the one posture above acceptEdits is dropped, and the MCP
    // servers and hooks (programs to run); nothing else.
    expect(
      diagnostics.map((d) => `${d.severity} ${d.code} ${d.span?.file.slice(repo.length)}:${d.span?.start.line}`),
    ).toEqual([
      'warning DEF_UNTRUSTED_FIELD /.claude/agents/data-scientist.md:7',
      'warning DEF_UNTRUSTED_FIELD /.claude/agents/frontend-developer.md:5',
      'warning DEF_UNTRUSTED_FIELD /.claude/agents/guarded-shell.md:8',
      'warning DEF_UNTRUSTED_FIELD /.claude/agents/migration-runner.md:6',
    ]);
    expect(set.get('persona', 'guarded-shell')?.ignoredFields).toEqual(['hooks']);
    for (const [file, expected] of Object.entries(EXPECTED)) {
      const persona = set.get('persona', expected.id);
      expect(persona?.layer).toBe('project');
      expect(persona?.file).toBe(join(repo, '.claude', 'agents', file));
    }
  });
});
