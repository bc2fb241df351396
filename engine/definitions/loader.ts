import { relative, resolve } from 'node:path';
import { neoHome } from '../util/neo-home.js';
import { packageRoot } from '../util/package-root.js';
import { buildDefinitionSet } from './build-set.js';
import type { DefinitionSet } from './definition-set.js';
import type { Diagnostic } from './diagnostic.js';
import { sortDiagnostics } from './diagnostic.js';
import { discoverLayers, discoverPaths, findRepoRoot, type DiscoveredFile, type LayerRoots } from './discover.js';
import { strayProjectFiles } from './stray-files.js';
import { loadDefinitionFile, makeDefinition, sourceOf, type FileLoad } from './load-file.js';
import { readPackagedSnapshot, snapshotEntry, type PackagedSnapshot } from './packaged-snapshot.js';
import { readDefinitionText } from './read-text.js';
import { contentHash } from '../util/content-hash.js';
import { outsideRepository } from './containment.js';
import { checkReferences, type ReferenceCache } from './references.js';
import { looksLikeScript } from './script-text.js';
import { TrustStore } from './trust.js';
import type { ProjectTrust } from './pins.js';
import { defined } from '../util/defined.js';

export interface LoaderOptions {
  /** Where to look for the project layer (default: process.cwd()). */
  cwd?: string;
  /** NEO_HOME (default: $NEO_HOME or ~/.neo). */
  home?: string;
  /** neo's install root (default: the package root). */
  packaged?: string;
  /** Leave out the project layer. */
  noProject?: boolean;
  /** Extra files or folders (the `path` layer, highest precedence). */
  paths?: readonly string[];
  /**
   * Files of `paths` named as flows (`neo flow run <file>`, a step's `flow:`): flows whatever their
   * name, since the command already says what they are.
   */
  flows?: readonly string[];
}

/** A definition set and every problem found while building it. */
export interface LoadResult {
  set: DefinitionSet;
  diagnostics: Diagnostic[];
}

/**
 * Loads every layer into a {@link DefinitionSet}, keeping each file's result so a change
 * re-parses only that file ({@link reloadFile}). Reference checks are re-run on the whole set;
 * they are cheap next to parsing.
 */
export class DefinitionLoader {
  readonly roots: LayerRoots;
  readonly #paths: readonly string[];
  readonly #flows: ReadonlySet<string>;
  readonly #trust: TrustStore;
  readonly #loads = new Map<string, FileLoad>();
  readonly #discovered = new Map<string, DiscoveredFile>();
  readonly #referenceCache: ReferenceCache = new WeakMap();
  #snapshot: PackagedSnapshot | null | undefined;
  #pathProblems: Diagnostic[] = [];
  #projectTrust: ProjectTrust = { trusted: false };

  private constructor(roots: LayerRoots, paths: readonly string[], flows: ReadonlySet<string>, trust: TrustStore) {
    this.roots = roots;
    this.#paths = paths;
    this.#flows = flows;
    this.#trust = trust;
  }

  /** Resolves the layer roots for `options`. */
  static async create(options: LoaderOptions = {}): Promise<DefinitionLoader> {
    const home = options.home ?? neoHome();
    const roots: LayerRoots = { packaged: options.packaged ?? packageRoot(), user: home };
    if (!options.noProject) roots.project = findRepoRoot(options.cwd ?? process.cwd(), { exclude: home });
    return new DefinitionLoader(
      roots,
      (options.paths ?? []).map((p) => resolve(p)),
      new Set((options.flows ?? []).map((p) => resolve(p))),
      new TrustStore(home),
    );
  }

  /** Whether the project is trusted (each file's privileged fields apply when they are what `neo trust` pinned). */
  get projectTrusted(): boolean {
    return this.#projectTrust.trusted;
  }

  /** The owner policy file. */
  get ownerPolicyFile(): string | undefined {
    return this.roots.user === undefined ? undefined : resolve(this.roots.user, 'policy.yaml');
  }

  /** Discovers and loads every file of every layer. */
  async loadAll(): Promise<LoadResult> {
    this.#projectTrust =
      this.roots.project === undefined ? { trusted: false } : await this.#trust.projectTrust(this.roots.project);
    const files = discoverLayers(this.roots);
    const fromPaths = discoverPaths(this.#paths, this.#flows);
    this.#pathProblems = [
      ...fromPaths.problems,
      ...fromPaths.missing.map((file) => pathProblem(file, 'CLI_PATH_NOT_FOUND', 'no such file or folder')),
      ...fromPaths.unknown.map((file) =>
        pathProblem(
          file,
          'DEF_UNKNOWN_KIND',
          'cannot tell what kind of definition this is',
          looksLikeScript(file)
            ? `a script for the script backend (\`turns:\`) is checked by \`neo script validate ${relative(process.cwd(), file) || file}\`, and by the flow whose step names it`
            : 'name it plan.yaml or *.flow.yaml (flow), put it in personas/ (persona, .md) or definitions/<backends|policies|capabilities|routing>/',
        ),
      ),
    ];
    if (this.roots.project !== undefined) {
      const skip = this.roots.user === undefined ? [] : [this.roots.user];
      this.#pathProblems.push(...strayProjectFiles(this.roots.project, skip));
    }
    this.#loads.clear();
    this.#discovered.clear();
    // A file found both in a standard layer and under a named folder keeps its standard layer,
    // so naming a project folder on the command line never makes its files trusted.
    const standard = new Set(files.map((f) => f.file));
    const all = [...files, ...fromPaths.files.filter((f) => !standard.has(f.file))];
    for (const entry of all) this.#discovered.set(entry.file, entry);
    const loads = await Promise.all(all.map((entry) => this.#load(entry)));
    for (const load of loads) this.#loads.set(load.file, load);
    return this.build();
  }

  /** How a file was discovered, when it belongs to the loaded layers. */
  entryFor(file: string): DiscoveredFile | undefined {
    return this.#discovered.get(file);
  }

  /** Re-reads one file (added or changed). Unknown files are classified by path. */
  async reloadFile(file: string, entry?: DiscoveredFile): Promise<LoadResult> {
    const known = entry ?? this.#discovered.get(file);
    if (known === undefined) return this.build();
    this.#discovered.set(file, known);
    this.#loads.set(file, await this.#load(known));
    return this.build();
  }

  /** Forgets a deleted file. */
  removeFile(file: string): LoadResult {
    this.#loads.delete(file);
    this.#discovered.delete(file);
    return this.build();
  }

  /** Every file of the loaded layers. */
  files(): string[] {
    return [...this.#discovered.keys()];
  }

  /** Whether a file is part of the loaded layers. */
  knows(file: string): boolean {
    return this.#discovered.has(file);
  }

  /** Builds a set from the cached file results. */
  build(): LoadResult {
    const loads = [...this.#loads.values()];
    const { set, diagnostics } = buildDefinitionSet(loads, this.ownerPolicyFile, this.#snapshot?.set);
    const all = [
      ...this.#pathProblems,
      ...loads.flatMap((l) => l.diagnostics),
      ...diagnostics,
      ...checkReferences(set, this.#referenceCache),
    ];
    return { set, diagnostics: sortDiagnostics(all) };
  }

  async #load(entry: DiscoveredFile): Promise<FileLoad> {
    if (entry.layer === 'packaged') {
      const restored = this.#fromSnapshot(entry);
      if (restored !== undefined) return restored;
    }
    if (entry.layer === 'project' && this.roots.project !== undefined) {
      const refused = outsideRepository(entry.file, this.roots.project);
      if (refused !== undefined)
        return { file: entry.file, kind: entry.kind, layer: entry.layer, diagnostics: [refused] };
    }
    const trusted = entry.layer !== 'project' || this.#projectTrust;
    return loadDefinitionFile(entry.file, {
      kind: entry.kind,
      layer: entry.layer,
      trusted,
      ...defined({ defaultId: entry.defaultId }),
    });
  }

  /** A packaged file restored from the build-time snapshot, when its content is unchanged. */
  #fromSnapshot(entry: DiscoveredFile): FileLoad | undefined {
    // Read once per loader: `null` (no snapshot) must stay put, not be read again for every file.
    if (this.#snapshot === undefined) this.#snapshot = readPackagedSnapshot(this.roots.packaged) ?? null;
    if (this.#snapshot === null) return undefined;
    let text: string | undefined;
    const readText = (): string | undefined => {
      if (text === undefined) {
        const read = readDefinitionText(entry.file);
        text = 'text' in read ? read.text : undefined;
      }
      return text;
    };
    const hit = snapshotEntry(this.#snapshot, this.roots.packaged, entry.file, () => {
      const current = readText();
      return current === undefined ? undefined : contentHash(current);
    });
    if (hit === undefined || hit.kind !== entry.kind) return undefined;
    const definition = makeDefinition(
      {
        kind: hit.kind,
        id: hit.id,
        layer: 'packaged',
        file: entry.file,
        data: hit.data,
        body: hit.body,
        idSpan: { file: entry.file, ...hit.idSpan },
        digest: hit.digest,
        trusted: true,
        ignoredFields: [],
      },
      () => sourceOf(entry.file, readText() ?? '', entry.kind),
    );
    // Its reference check at build time, keyed by what it depended on (references.ts).
    if (hit.references !== undefined) this.#referenceCache.set(definition, { key: hit.references, diagnostics: [] });
    return { file: entry.file, kind: entry.kind, layer: 'packaged', definition, diagnostics: [] };
  }
}

function pathProblem(file: string, code: string, message: string, hint?: string): Diagnostic {
  const at = { line: 1, column: 1, offset: 0 };
  return { code, severity: 'error', message, span: { file, start: at, end: at }, ...(hint ? { hint } : {}) };
}

/** Loads every layer once: the common entry point for commands. */
export async function loadDefinitions(options: LoaderOptions = {}): Promise<LoadResult & { loader: DefinitionLoader }> {
  const loader = await DefinitionLoader.create(options);
  const result = await loader.loadAll();
  return { ...result, loader };
}
