/**
 * Dependency names out of the four manifests a `packageDep` rule looks in. Each parser is
 * deliberately small and line-based where the format allows it (go.mod, TOML tables): detection
 * needs names, not a faithful parse, and an unreadable manifest yields no names rather than an error.
 */

/** Dependency names of a package.json (every dependency section). */
export function packageJsonDeps(text: string): string[] {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const names: string[] = [];
    for (const section of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
      const deps = json[section];
      if (typeof deps === 'object' && deps !== null && !Array.isArray(deps)) names.push(...Object.keys(deps));
    }
    return names;
  } catch {
    return [];
  }
}

/** Module paths a go.mod requires (single lines and `require ( … )` blocks). */
export function goModDeps(text: string): string[] {
  const names: string[] = [];
  let inBlock = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (inBlock) {
      if (line === ')') inBlock = false;
      else if (line !== '') names.push(line.split(/\s+/)[0]!);
    } else if (/^require\s*\($/.test(line)) inBlock = true;
    else {
      const single = /^require\s+(\S+)/.exec(line);
      if (single) names.push(single[1]!);
    }
  }
  return names;
}

/** Crate names in Cargo.toml's dependency tables (also `[target.….dependencies]` and `[dependencies.x]`). */
export function cargoDeps(text: string): string[] {
  const names: string[] = [];
  let inDeps = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const table = /^\[([^\]]+)\]$/.exec(line);
    if (table) {
      const name = table[1]!.trim();
      const sub = /(?:^|\.)(?:dev-|build-)?dependencies\.([A-Za-z0-9_-]+)$/.exec(name);
      if (sub) names.push(sub[1]!);
      inDeps = /(?:^|\.)(?:dev-|build-)?dependencies$/.test(name);
      continue;
    }
    const key = inDeps ? /^([A-Za-z0-9_-]+)\s*=/.exec(line) : null;
    if (key) names.push(key[1]!);
  }
  return names;
}

/**
 * Distribution names in a pyproject.toml: PEP 621 `dependencies` / `optional-dependencies`
 * strings and Poetry's `[tool.poetry.*dependencies]` keys, normalized (PEP 503: lower case,
 * runs of `-_.` as one `-`).
 */
export function pyprojectDeps(text: string): string[] {
  const names: string[] = [];
  let table = '';
  let inArray = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[\[?([^\]]+)\]\]?$/.exec(line);
    if (header) {
      table = header[1]!.trim();
      inArray = false;
      continue;
    }
    const poetry = /^tool\.poetry\.(?:.*\.)?dependencies$/.test(table);
    if (poetry) {
      const key = /^"?([A-Za-z0-9_.-]+)"?\s*=/.exec(line);
      if (key && key[1] !== 'python') names.push(key[1]!);
      continue;
    }
    const pep621 = table === 'project' || table === 'project.optional-dependencies' || table === 'dependency-groups';
    if (!pep621) continue;
    if (!inArray) {
      const start = /^(?:dependencies|[A-Za-z0-9_-]+)\s*=\s*\[(.*)$/.exec(line);
      if (table === 'project' && !line.startsWith('dependencies')) continue;
      if (!start) continue;
      inArray = !start[1]!.includes(']');
      names.push(...requirementNames(start[1]!));
    } else {
      if (line.includes(']')) inArray = false;
      names.push(...requirementNames(line));
    }
  }
  return names.map(normalizePython);
}

function requirementNames(fragment: string): string[] {
  return [...fragment.matchAll(/["']\s*([A-Za-z0-9][A-Za-z0-9_.-]*)/g)].map((m) => m[1]!);
}

export function normalizePython(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}
