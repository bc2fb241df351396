import { callees, callers, findRefs, findSymbol, imports, outline, repoMap, testsFor } from '../graph/index.js';
import type { MemoryTool } from './tool.js';

const name = { type: 'string', minLength: 1, maxLength: 300 } as const;
const file = { type: 'string', minLength: 1, maxLength: 1000, description: 'A repository-relative file.' } as const;

export const findSymbolTool: MemoryTool = {
  name: 'find_symbol',
  description:
    'Where a symbol (function, class, method, type) is defined: file, lines, kind and signature. `Class.method` narrows to a class.',
  readOnly: true,
  graph: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { ...name, description: 'The symbol name.' } },
  },
  run: (input, { memory }) => ({ definitions: findSymbol(memory.db, input.name as string) }),
};

export const relatedCodeTool: MemoryTool = {
  name: 'related_code',
  description:
    "A symbol's neighbourhood, by name (best effort): its callers, its callees, every reference to it, and the imports of and into the files defining it.",
  readOnly: true,
  graph: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { ...name, description: 'The symbol name.' } },
  },
  run(input, { memory }) {
    const symbol = input.name as string;
    const defined = findSymbol(memory.db, symbol);
    const files = [...new Set(defined.map((d) => d.file))].slice(0, 5);
    return {
      definitions: defined,
      callers: callers(memory.db, symbol),
      callees: callees(memory.db, symbol),
      references: findRefs(memory.db, symbol).slice(0, 200),
      imports: Object.fromEntries(files.map((f) => [f, imports(memory.db, f)])),
    };
  },
};

export const testsForTool: MemoryTool = {
  name: 'tests_for',
  description:
    'The test files that exercise a file (they import it or use what it defines) or a symbol (they call or reference it).',
  readOnly: true,
  graph: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    required: ['target'],
    properties: {
      target: {
        type: 'string',
        minLength: 1,
        maxLength: 1000,
        description: 'A repository-relative file or a symbol name.',
      },
    },
  },
  run: (input, { memory }) => ({ tests: testsFor(memory.db, input.target as string) }),
};

export const repoMapTool: MemoryTool = {
  name: 'repo_map',
  description:
    'A ranked map of the repository (files and their most used definitions), personalised by the files and symbols you name, fitted to a token budget.',
  readOnly: true,
  graph: true,
  inputSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      tokens: { type: 'integer', minimum: 100, maximum: 8000, description: 'The budget (default 1500).' },
      files: { type: 'array', maxItems: 50, items: file, description: 'Files you will work on.' },
      symbols: {
        type: 'array',
        maxItems: 50,
        items: { type: 'string', minLength: 1, maxLength: 200 },
        description: 'Symbols you will work on.',
      },
    },
  },
  run: (input, { memory }) => ({
    map: repoMap(memory.db, {
      tokens: typeof input.tokens === 'number' ? input.tokens : 1500,
      focus: (input.files as string[] | undefined) ?? [],
      symbols: (input.symbols as string[] | undefined) ?? [],
    }),
  }),
};

export const fileOutlineTool: MemoryTool = {
  name: 'file_outline',
  description: "A file's definitions in order, with their lines and signatures.",
  readOnly: true,
  graph: true,
  inputSchema: { type: 'object', additionalProperties: false, required: ['path'], properties: { path: file } },
  run: (input, { memory }) => ({ outline: outline(memory.db, input.path as string) }),
};
