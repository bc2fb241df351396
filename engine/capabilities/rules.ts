/**
 * One detection rule against what was read of a project (project-inputs.ts): the evidence a rule
 * matched on (`package.json: stripe`), or undefined. Workflows and compose files are matched by
 * their `uses:` and `image:` lines, not parsed: detection needs those values only, and a file that
 * would not parse still names them.
 */
import type { Rule } from '../generated/capability.js';
import { cargoDeps, goModDeps, normalizePython, packageJsonDeps, pyprojectDeps } from './manifests.js';
import { COMPOSE_FILES, normal, segmentMatches, WORKFLOW_DIR, type ProjectInputs } from './project-inputs.js';

/** Describes the rule in one line, as `neo capabilities show` and the profile print it. */
export function ruleLabel(rule: Rule): string {
  if (rule.fileExists !== undefined) return `file ${rule.fileExists}`;
  if (rule.packageDep !== undefined) return `dependency ${rule.packageDep}`;
  if (rule.fileContent !== undefined)
    return rule.fileContent.regex !== undefined
      ? `${rule.fileContent.path} matches /${rule.fileContent.regex}/`
      : `${rule.fileContent.path} contains ${JSON.stringify(rule.fileContent.contains)}`;
  if (rule.workflowAction !== undefined) return `workflow uses ${rule.workflowAction}`;
  if (rule.composeService !== undefined) return `compose image ${rule.composeService}`;
  return 'an empty rule';
}

/** The evidence `rule` matched on, or undefined. */
export function matchRule(rule: Rule, inputs: ProjectInputs): string | undefined {
  if (rule.fileExists !== undefined) return existing(rule.fileExists, inputs);
  if (rule.packageDep !== undefined) return dependency(rule.packageDep, inputs);
  if (rule.fileContent !== undefined) {
    const path = normal(rule.fileContent.path);
    const text = path === '' ? undefined : inputs.files.get(path);
    if (text === undefined) return undefined;
    const { contains, regex } = rule.fileContent;
    if (contains !== undefined)
      return text.includes(contains) ? `${path} contains ${JSON.stringify(contains)}` : undefined;
    if (regex !== undefined) return safeRegex(regex)?.test(text) ? `${path} matches /${regex}/` : undefined;
    return undefined;
  }
  if (rule.workflowAction !== undefined) return workflowUse(rule.workflowAction, inputs);
  if (rule.composeService !== undefined) return composeImage(rule.composeService, inputs);
  return undefined;
}

function existing(pattern: string, inputs: ProjectInputs): string | undefined {
  const segments = normal(pattern).split('/');
  if (segments[0] === '') return undefined;
  let paths = [''];
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1;
    const next: string[] = [];
    for (const dir of paths)
      for (const [name, kind] of inputs.listings.get(dir) ?? [])
        if (segmentMatches(segment, name) && (last || kind === 'd')) next.push(dir === '' ? name : `${dir}/${name}`);
    paths = next;
  }
  return paths.sort()[0];
}

function dependency(name: string, inputs: ProjectInputs): string | undefined {
  const sources: Array<[string, (text: string) => string[], (n: string) => string]> = [
    ['package.json', packageJsonDeps, (n) => n],
    ['pyproject.toml', pyprojectDeps, normalizePython],
    ['go.mod', goModDeps, (n) => n],
    ['Cargo.toml', cargoDeps, (n) => n],
  ];
  for (const [file, parse, norm] of sources) {
    const text = inputs.files.get(file);
    if (text !== undefined && parse(text).includes(norm(name))) return `${file}: ${name}`;
  }
  return undefined;
}

function workflowUse(prefix: string, inputs: ProjectInputs): string | undefined {
  for (const [path, text] of [...inputs.files].sort(([a], [b]) => a.localeCompare(b))) {
    if (!path.startsWith(`${WORKFLOW_DIR}/`) || text === undefined) continue;
    for (const match of text.matchAll(/^\s*(?:-\s*)?uses:\s*["']?([^"'\s#]+)/gm)) {
      const uses = match[1]!;
      if (uses === prefix || uses.startsWith(`${prefix}@`) || uses.startsWith(`${prefix}/`))
        return `${path}: uses ${uses}`;
    }
  }
  return undefined;
}

function composeImage(prefix: string, inputs: ProjectInputs): string | undefined {
  for (const file of COMPOSE_FILES) {
    const text = inputs.files.get(file);
    if (text === undefined) continue;
    for (const match of text.matchAll(/^\s*image:\s*["']?([^"'\s#]+)/gm)) {
      const image = match[1]!.replace(/^(?:docker\.io\/)?(?:library\/)?/, '');
      const name = image.replace(/@.*$/, '').replace(/:[^/]*$/, '');
      if (name === prefix || name.startsWith(`${prefix}/`)) return `${file}: image ${match[1]}`;
    }
  }
  return undefined;
}

const regexCache = new Map<string, RegExp | undefined>();

/** A rule's regex, compiled once; an invalid one matches nothing (the schema cannot check a pattern's syntax). */
function safeRegex(source: string): RegExp | undefined {
  if (!regexCache.has(source)) {
    try {
      regexCache.set(source, new RegExp(source));
    } catch {
      regexCache.set(source, undefined);
    }
  }
  return regexCache.get(source);
}
