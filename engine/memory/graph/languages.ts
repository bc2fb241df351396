/**
 * The languages the code graph reads: each a tree-sitter grammar shipped as wasm in the
 * `tree-sitter-wasms` npm package (nothing is downloaded at run time), a query that captures
 * definitions (`@def.<kind>` with its `@name`), imports (`@import`; Rust's `mod x;` is `@import.mod`), calls (`@call`) and type
 * references (`@ref`), and what makes a file a test.
 */
export type LanguageId = 'typescript' | 'tsx' | 'javascript' | 'python' | 'go' | 'rust';

export interface Language {
  id: LanguageId;
  /** The grammar's file in tree-sitter-wasms/out. */
  wasm: string;
  query: string;
  isTest(path: string): boolean;
}

const JS_TEST = (path: string) =>
  /(^|\/)(tests?|__tests__|spec)\//.test(path) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(path);

const TS_DEFS = `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (type_identifier) @name) @def.class
(abstract_class_declaration name: (type_identifier) @name) @def.class
(interface_declaration name: (type_identifier) @name) @def.interface
(type_alias_declaration name: (type_identifier) @name) @def.type
(enum_declaration name: (identifier) @name) @def.enum
(method_definition name: (property_identifier) @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(type_identifier) @ref
`;

const JS_COMMON = `
(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
(call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import)) (#eq? @_req "require"))
(call_expression function: (identifier) @call)
(call_expression function: (member_expression property: (property_identifier) @call))
(new_expression constructor: (identifier) @call)
`;

const JS_DEFS = `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (identifier) @name) @def.class
(method_definition name: (property_identifier) @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
`;

export const LANGUAGES: Record<LanguageId, Language> = {
  typescript: { id: 'typescript', wasm: 'tree-sitter-typescript.wasm', query: TS_DEFS + JS_COMMON, isTest: JS_TEST },
  tsx: { id: 'tsx', wasm: 'tree-sitter-tsx.wasm', query: TS_DEFS + JS_COMMON, isTest: JS_TEST },
  javascript: { id: 'javascript', wasm: 'tree-sitter-javascript.wasm', query: JS_DEFS + JS_COMMON, isTest: JS_TEST },
  python: {
    id: 'python',
    wasm: 'tree-sitter-python.wasm',
    query: `
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
(import_from_statement module_name: (dotted_name) @import)
(import_from_statement module_name: (relative_import) @import)
(call function: (identifier) @call)
(call function: (attribute attribute: (identifier) @call))
`,
    isTest: (path) => /(^|\/)tests?\//.test(path) || /(^|\/)test_[^/]*\.py$/.test(path) || /_test\.py$/.test(path),
  },
  go: {
    id: 'go',
    wasm: 'tree-sitter-go.wasm',
    query: `
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(import_spec path: (interpreted_string_literal) @import)
(call_expression function: (identifier) @call)
(call_expression function: (selector_expression field: (field_identifier) @call))
(type_identifier) @ref
`,
    isTest: (path) => path.endsWith('_test.go'),
  },
  rust: {
    id: 'rust',
    wasm: 'tree-sitter-rust.wasm',
    query: `
(function_item name: (identifier) @name) @def.function
(struct_item name: (type_identifier) @name) @def.class
(enum_item name: (type_identifier) @name) @def.enum
(trait_item name: (type_identifier) @name) @def.interface
(impl_item type: (type_identifier) @name) @def.impl
(mod_item name: (identifier) @name) @def.module
(mod_item name: (identifier) @import.mod !body)
(use_declaration argument: (_) @import)
(call_expression function: (identifier) @call)
(call_expression function: (field_expression field: (field_identifier) @call))
(call_expression function: (scoped_identifier name: (identifier) @call))
(macro_invocation macro: (identifier) @call)
(type_identifier) @ref
`,
    isTest: (path) => /(^|\/)tests\//.test(path) || /_test\.rs$/.test(path),
  },
};

const BY_EXTENSION: Record<string, LanguageId> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  py: 'python',
  go: 'go',
  rs: 'rust',
};

/** The language of a path, by its extension (a `.d.ts` declaration file is not code to map). */
export function languageOf(path: string): Language | undefined {
  if (path.endsWith('.d.ts')) return undefined;
  const ext = path.slice(path.lastIndexOf('.') + 1);
  const id = BY_EXTENSION[ext];
  return id === undefined ? undefined : LANGUAGES[id];
}
