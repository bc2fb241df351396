import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { KIND_INFO } from './kinds.js';
const YAML_KINDS = ['backend', 'policy', 'capability', 'routing'];
const isYaml = (name) => /\.ya?ml$/.test(name);
const isMarkdown = (name) => name.endsWith('.md') && !/^(readme|changelog)\.md$/i.test(name);
const onlyKind = (kind, test) => (name) => (test(name) ? { kind } : undefined);
function definitionFolders(root, layer) {
    return YAML_KINDS.map((kind) => ({ folder: join(root, KIND_INFO[kind].folder), layer, classify: onlyKind(kind, isYaml) }));
}
function projectFolders(repo, layer) {
    const neo = join(repo, '.neo');
    return [
        ...definitionFolders(join(neo, 'definitions'), layer),
        { folder: join(repo, '.claude', 'agents'), layer, classify: onlyKind('persona', isMarkdown) },
        { folder: join(neo, 'personas'), layer, classify: onlyKind('persona', isMarkdown) },
        { folder: join(neo, 'flows'), layer, classify: onlyKind('flow', isYaml) },
        { folder: neo, layer, classify: (name) => (name === 'neo.yaml' ? { kind: 'config' } : undefined) },
    ];
}
/** The folders of the standard layers, lowest layer first. */
export function layerFolderTable(roots) {
    const table = [
        ...definitionFolders(join(roots.packaged, 'definitions'), 'packaged'),
        { folder: join(roots.packaged, 'personas'), layer: 'packaged', classify: onlyKind('persona', isMarkdown) },
    ];
    if (roots.user !== undefined) {
        const home = roots.user;
        table.push(...definitionFolders(join(home, 'definitions'), 'user'), { folder: join(home, 'agents'), layer: 'user', classify: onlyKind('persona', isMarkdown) }, { folder: join(home, 'flows'), layer: 'user', classify: onlyKind('flow', isYaml) }, {
            folder: home,
            layer: 'user',
            classify: (name) => (name === 'policy.yaml' ? { kind: 'policy', defaultId: 'owner' } : name === 'neo.yaml' ? { kind: 'config' } : undefined),
        });
    }
    if (roots.project !== undefined)
        table.push(...projectFolders(roots.project, 'project'));
    return table;
}
/**
 * The folders a folder named on the command line contributes: its flows (`plan.yaml`,
 * `*.flow.yaml`, `flows/`), `personas/`, `agents/`, `definitions/`, and its `.neo/` project layer.
 */
export function pathFolderTable(dir) {
    const top = (name) => {
        const kind = kindOfPath(join(dir, name));
        return kind === 'flow' || kind === 'config' ? { kind } : undefined;
    };
    return [
        { folder: dir, layer: 'path', classify: top },
        { folder: join(dir, 'flows'), layer: 'path', classify: onlyKind('flow', isYaml) },
        { folder: join(dir, 'personas'), layer: 'path', classify: onlyKind('persona', isMarkdown) },
        { folder: join(dir, 'agents'), layer: 'path', classify: onlyKind('persona', isMarkdown) },
        ...definitionFolders(join(dir, 'definitions'), 'path'),
        ...projectFolders(dir, 'path'),
    ];
}
/** Lists each folder of a table and keeps the files it classifies, in table order. */
export async function discoverTable(table) {
    const listed = await Promise.all(table.map((entry) => safeReaddir(entry.folder)));
    const out = [];
    table.forEach((entry, i) => {
        for (const name of listed[i]) {
            const found = entry.classify(name);
            if (found)
                out.push({ file: join(entry.folder, name), layer: entry.layer, ...found });
        }
    });
    return out;
}
/** Every definition file of the standard layers, lowest layer first. */
export function discoverLayers(roots) {
    return discoverTable(layerFolderTable(roots));
}
/** What a single file is, when it sits directly in a folder of `table`. */
export function classifyFile(table, file) {
    const folder = dirname(file);
    const name = basename(file);
    let found;
    // Later entries win, as later layers do.
    for (const entry of table) {
        if (entry.folder !== folder)
            continue;
        const kind = entry.classify(name);
        if (kind)
            found = { file, layer: entry.layer, ...kind };
    }
    return found;
}
/**
 * What kind a file is, from where it sits: `*.md` is a persona; `plan.yaml`, `*.flow.yaml` and
 * files under `flows/` are flows; files under `definitions/<folder>/` are that folder's kind;
 * `neo.yaml` is config; `policy.yaml` is a policy. Undefined when it cannot tell.
 */
export function kindOfPath(file) {
    const name = basename(file);
    const parent = basename(dirname(file));
    if (name.endsWith('.md'))
        return 'persona';
    if (!isYaml(name))
        return undefined;
    if (name === 'neo.yaml' || name === 'neo.yml')
        return 'config';
    if (name === 'plan.yaml' || name === 'plan.yml' || /\.flow\.ya?ml$/.test(name) || parent === 'flows')
        return 'flow';
    if (name === 'policy.yaml')
        return 'policy';
    for (const kind of YAML_KINDS)
        if (parent === KIND_INFO[kind].folder)
            return kind;
    return undefined;
}
/** Files and folders named on the command line, as the `path` layer. */
export async function discoverPaths(paths) {
    const files = [];
    const unknown = [];
    const missing = [];
    const table = [];
    for (const raw of paths) {
        const path = resolve(raw);
        let info;
        try {
            info = await stat(path);
        }
        catch {
            missing.push(path);
            continue;
        }
        if (info.isFile()) {
            const kind = kindOfPath(path);
            if (kind === undefined)
                unknown.push(path);
            else
                files.push({ file: path, kind, layer: 'path' });
            continue;
        }
        const folders = pathFolderTable(path);
        table.push(...folders);
        files.push(...(await discoverTable(folders)));
    }
    return { files, unknown, missing, table };
}
async function safeReaddir(dir) {
    try {
        return (await readdir(dir)).sort();
    }
    catch {
        return [];
    }
}
/** The repository root above `cwd`: the nearest folder with `.git` or `.neo`, else `cwd`. */
export async function findRepoRoot(cwd, options = {}) {
    let dir = resolve(cwd);
    for (;;) {
        for (const marker of ['.git', '.neo']) {
            try {
                const found = join(dir, marker);
                await stat(found);
                // NEO_HOME (~/.neo) is the user layer, not a project marker.
                if (options.exclude === undefined || resolve(found) !== resolve(options.exclude))
                    return dir;
            }
            catch {
                // keep walking up
            }
        }
        const parent = dirname(dir);
        if (parent === dir)
            return resolve(cwd);
        dir = parent;
    }
}
