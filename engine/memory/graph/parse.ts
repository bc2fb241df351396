/**
 * One file → its facts, with web-tree-sitter: definitions (name, kind, span, signature, the
 * class they sit in), imports, calls with the definition they are made from, and type references.
 * The runtime and grammars are wasm from npm packages, loaded once per process, on first use.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type ParserType from 'web-tree-sitter';
import { LANGUAGES, type Language, type LanguageId } from './languages.js';

const require = createRequire(import.meta.url);

export interface SymbolFact {
  name: string;
  kind: string;
  /** 1-based, inclusive. */
  startLine: number;
  endLine: number;
  signature: string;
  /** The class (impl, module) it is defined in. */
  parent?: string;
}

export interface RefFact {
  name: string;
  line: number;
  kind: 'call' | 'ref';
  /** The innermost definition the reference is made from. */
  caller?: string;
}

export interface FileFacts {
  symbols: SymbolFact[];
  refs: RefFact[];
  imports: Array<{ spec: string; line: number }>;
}

interface Loaded {
  /** The Parser class as first required: its init replaces the package's module.exports with the wasm Module. */
  Parser: typeof ParserType;
  parser: ParserType;
  languages: Map<LanguageId, { language: ParserType.Language; query: ParserType.Query }>;
}

let loading: Promise<Loaded> | undefined;

async function runtime(): Promise<Loaded> {
  loading ??= (async () => {
    const Parser = require('web-tree-sitter') as typeof ParserType;
    await Parser.init();
    return { Parser, parser: new Parser(), languages: new Map() };
  })();
  return loading;
}

async function grammar(loaded: Loaded, lang: Language) {
  const held = loaded.languages.get(lang.id);
  if (held !== undefined) return held;
  const { Parser } = loaded;
  const wasm = join(dirname(require.resolve('tree-sitter-wasms/package.json')), 'out', lang.wasm);
  const language = await Parser.Language.load(wasm);
  const entry = { language, query: language.query(lang.query) };
  loaded.languages.set(lang.id, entry);
  return entry;
}

/** Loads the parser and every grammar (an index then parses synchronously). */
export async function parserFor(langs: Iterable<Language>): Promise<(text: string, lang: Language) => FileFacts> {
  const loaded = await runtime();
  for (const lang of langs) await grammar(loaded, lang);
  return (text, lang) => {
    const entry = loaded.languages.get(lang.id)!;
    loaded.parser.setLanguage(entry.language);
    const tree = loaded.parser.parse(text);
    try {
      return extract(entry.query, tree.rootNode);
    } finally {
      tree.delete();
    }
  };
}

const CONTAINERS = new Set(['class', 'impl', 'interface', 'module']);

function extract(query: ParserType.Query, root: ParserType.SyntaxNode): FileFacts {
  const defs: Array<SymbolFact & { startIndex: number; endIndex: number; nameIndex: number }> = [];
  const raw: Array<{ name: string; line: number; index: number; kind: 'call' | 'ref' }> = [];
  const imports: FileFacts['imports'] = [];
  for (const match of query.matches(root)) {
    const def = match.captures.find((c) => c.name.startsWith('def.'));
    if (def !== undefined) {
      const name = match.captures.find((c) => c.name === 'name');
      if (name === undefined) continue;
      defs.push({
        name: name.node.text,
        kind: def.name.slice(4),
        startLine: def.node.startPosition.row + 1,
        endLine: def.node.endPosition.row + 1,
        signature: signatureOf(def.node.text),
        startIndex: def.node.startIndex,
        endIndex: def.node.endIndex,
        nameIndex: name.node.startIndex,
      });
      continue;
    }
    for (const capture of match.captures) {
      if (capture.name === 'import')
        imports.push({ spec: capture.node.text.replace(/^["']|["']$/g, ''), line: capture.node.startPosition.row + 1 });
      else if (capture.name === 'import.mod')
        imports.push({ spec: `mod ${capture.node.text}`, line: capture.node.startPosition.row + 1 });
      else if (capture.name === 'call' || capture.name === 'ref')
        raw.push({
          name: capture.node.text,
          line: capture.node.startPosition.row + 1,
          index: capture.node.startIndex,
          kind: capture.name,
        });
    }
  }
  defs.sort((a, b) => a.startIndex - b.startIndex || b.endIndex - a.endIndex);
  const names = new Set(defs.map((d) => d.nameIndex));
  // The innermost definition holding a position (defs sorted by start, outer before inner).
  const within = (index: number, self?: number) => {
    let found: (typeof defs)[number] | undefined;
    for (const d of defs) {
      if (d.startIndex > index) break;
      if (d.endIndex >= index && d.startIndex !== self) found = d;
    }
    return found;
  };
  const symbols = defs.map((d) => {
    const parent = within(d.startIndex, d.startIndex);
    const kind = d.kind === 'function' && parent !== undefined && CONTAINERS.has(parent.kind) ? 'method' : d.kind;
    const symbol: SymbolFact = {
      name: d.name,
      kind,
      startLine: d.startLine,
      endLine: d.endLine,
      signature: d.signature,
    };
    if (parent !== undefined && CONTAINERS.has(parent.kind)) symbol.parent = parent.name;
    return symbol;
  });
  const refs: RefFact[] = [];
  const seen = new Set<string>();
  for (const r of raw) {
    if (names.has(r.index)) continue;
    const caller = within(r.index)?.name;
    // One row per name, kind and caller on a line: a graph of who uses what, not a token list.
    const key = `${r.name}\0${r.line}\0${r.kind}\0${caller ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    refs.push({ name: r.name, line: r.line, kind: r.kind, ...(caller === undefined ? {} : { caller }) });
  }
  return { symbols, refs, imports };
}

/** A definition's head: its first line, up to its body, at most 200 characters. */
function signatureOf(text: string): string {
  const first = text.split('\n', 1)[0]!;
  const head = first.replace(/\s*\{\s*$/, '').trim();
  return head.length <= 200 ? head : `${head.slice(0, 199)}…`;
}

export { LANGUAGES };
