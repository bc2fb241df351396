/** The code graph: an incremental tree-sitter index in the memory database, its queries and the ranked map. */
export { indexRepository, gitFiles, MAX_FILE_BYTES, type IndexReport } from './indexer.js';
export {
  findSymbol,
  findRefs,
  callers,
  callees,
  imports,
  testsFor,
  outline,
  type SymbolRow,
  type RefRow,
} from './queries.js';
export { repoMap, rankFiles, type MapOptions } from './repo-map.js';
export { languageOf, LANGUAGES, type LanguageId } from './languages.js';
