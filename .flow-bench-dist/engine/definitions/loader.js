import { resolve } from 'node:path';
import { neoHome } from '../util/neo-home.js';
import { packageRoot } from '../util/package-root.js';
import { buildDefinitionSet } from './build-set.js';
import { sortDiagnostics } from './diagnostic.js';
import { discoverLayers, discoverPaths, findRepoRoot } from './discover.js';
import { loadDefinitionFile, makeDefinition, sourceOf } from './load-file.js';
import { readPackagedSnapshot, snapshotEntry } from './packaged-snapshot.js';
import { readDefinitionText } from './read-text.js';
import { contentHash } from '../util/content-hash.js';
import { checkReferences } from './references.js';
import { TrustStore } from './trust.js';
/**
 * Loads every layer into a {@link DefinitionSet}, keeping each file's result so a change
 * re-parses only that file ({@link reloadFile}). Reference checks are re-run on the whole set;
 * they are cheap next to parsing.
 */
export class DefinitionLoader {
    roots;
    #paths;
    #trust;
    #loads = new Map();
    #discovered = new Map();
    #referenceCache = new WeakMap();
    #snapshot;
    #pathProblems = [];
    #projectTrusted = false;
    constructor(roots, paths, trust) {
        this.roots = roots;
        this.#paths = paths;
        this.#trust = trust;
    }
    /** Resolves the layer roots for `options`. */
    static async create(options = {}) {
        const home = options.home ?? neoHome();
        const roots = { packaged: options.packaged ?? packageRoot(), user: home };
        if (!options.noProject)
            roots.project = await findRepoRoot(options.cwd ?? process.cwd(), { exclude: home });
        return new DefinitionLoader(roots, (options.paths ?? []).map((p) => resolve(p)), new TrustStore(home));
    }
    /** Whether the project layer's privileged fields apply. */
    get projectTrusted() {
        return this.#projectTrusted;
    }
    /** The owner policy file. */
    get ownerPolicyFile() {
        return this.roots.user === undefined ? undefined : resolve(this.roots.user, 'policy.yaml');
    }
    /** Discovers and loads every file of every layer. */
    async loadAll() {
        this.#projectTrusted = this.roots.project !== undefined && (await this.#trust.isTrusted(this.roots.project));
        const files = await discoverLayers(this.roots);
        const fromPaths = await discoverPaths(this.#paths);
        this.#pathProblems = [
            ...fromPaths.missing.map((file) => pathProblem(file, 'CLI_PATH_NOT_FOUND', 'no such file or folder')),
            ...fromPaths.unknown.map((file) => pathProblem(file, 'DEF_UNKNOWN_KIND', 'cannot tell what kind of definition this is', 'name it plan.yaml or *.flow.yaml (flow), put it in personas/ (persona, .md) or definitions/<backends|policies|capabilities|routing>/')),
        ];
        this.#loads.clear();
        this.#discovered.clear();
        // A file found both in a standard layer and under a named folder keeps its standard layer,
        // so naming a project folder on the command line never makes its files trusted.
        const standard = new Set(files.map((f) => f.file));
        const all = [...files, ...fromPaths.files.filter((f) => !standard.has(f.file))];
        for (const entry of all)
            this.#discovered.set(entry.file, entry);
        const loads = await Promise.all(all.map((entry) => this.#load(entry)));
        for (const load of loads)
            this.#loads.set(load.file, load);
        return this.build();
    }
    /** How a file was discovered, when it belongs to the loaded layers. */
    entryFor(file) {
        return this.#discovered.get(file);
    }
    /** Re-reads one file (added or changed). Unknown files are classified by path. */
    async reloadFile(file, entry) {
        const known = entry ?? this.#discovered.get(file);
        if (known === undefined)
            return this.build();
        this.#discovered.set(file, known);
        this.#loads.set(file, await this.#load(known));
        return this.build();
    }
    /** Forgets a deleted file. */
    removeFile(file) {
        this.#loads.delete(file);
        this.#discovered.delete(file);
        return this.build();
    }
    /** Every file of the loaded layers. */
    files() {
        return [...this.#discovered.keys()];
    }
    /** Whether a file is part of the loaded layers. */
    knows(file) {
        return this.#discovered.has(file);
    }
    /** Builds a set from the cached file results. */
    build() {
        const loads = [...this.#loads.values()];
        const { set, diagnostics } = buildDefinitionSet(loads, this.ownerPolicyFile);
        const all = [...this.#pathProblems, ...loads.flatMap((l) => l.diagnostics), ...diagnostics, ...checkReferences(set, this.#referenceCache)];
        return { set, diagnostics: sortDiagnostics(all) };
    }
    async #load(entry) {
        if (entry.layer === 'packaged') {
            const restored = this.#fromSnapshot(entry);
            if (restored !== undefined)
                return restored;
        }
        const trusted = entry.layer !== 'project' || this.#projectTrusted;
        return loadDefinitionFile(entry.file, { kind: entry.kind, layer: entry.layer, trusted, ...(entry.defaultId === undefined ? {} : { defaultId: entry.defaultId }) });
    }
    /** A packaged file restored from the build-time snapshot, when its content is unchanged. */
    #fromSnapshot(entry) {
        this.#snapshot ??= readPackagedSnapshot(this.roots.packaged) ?? null;
        if (this.#snapshot === null)
            return undefined;
        const read = readDefinitionText(entry.file);
        if (!('text' in read))
            return undefined;
        const { text } = read;
        const hit = snapshotEntry(this.#snapshot, this.roots.packaged, entry.file, contentHash(text));
        if (hit === undefined || hit.kind !== entry.kind)
            return undefined;
        const definition = makeDefinition({ kind: hit.kind, id: hit.id, layer: 'packaged', file: entry.file, data: hit.data, body: hit.body, idSpan: { file: entry.file, ...hit.idSpan }, digest: hit.digest, ignoredFields: [] }, () => sourceOf(entry.file, text, entry.kind));
        return { file: entry.file, kind: entry.kind, layer: 'packaged', definition, diagnostics: [] };
    }
}
function pathProblem(file, code, message, hint) {
    const at = { line: 1, column: 1, offset: 0 };
    return { code, severity: 'error', message, span: { file, start: at, end: at }, ...(hint ? { hint } : {}) };
}
/** Loads every layer once: the common entry point for commands. */
export async function loadDefinitions(options = {}) {
    const loader = await DefinitionLoader.create(options);
    const result = await loader.loadAll();
    return { ...result, loader };
}
