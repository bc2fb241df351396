/**
 * neo's import boundaries as two ESLint rules (the tool that keeps docs/architecture.md's layering true):
 *
 * - `neo/pure-imports`: a pure file (the expression language, the flow core, the posture module,
 *   the statechart definitions) may import, as a value, only other pure files and a few pure packages.
 *   `import type` is free: it erases at build time, so it can pull no I/O.
 * - `neo/area-imports`: an area (a folder under engine/, or cli/) reaches another area only through
 *   that area's index.ts (or a sub-area's index.ts), so each area's surface is what its index exports.
 */
import { builtinModules } from 'node:module';
import path from 'node:path';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** Files and folders whose code must stay free of I/O (paths relative to the project root). */
export const PURE = [
  'engine/expr/',
  'engine/flow/core/',
  'engine/posture/',
  'engine/persona/machine-context.ts',
  'engine/persona/machine.ts',
  'engine/persona/decisions.ts',
  'engine/session/machine.ts',
  'engine/definitions/policy.ts',
  'engine/generated/',
  'engine/util/defined.ts',
  'engine/util/did-you-mean.ts',
  'engine/util/env-name.ts',
  'engine/util/duration.ts',
  'engine/util/json-shape.ts',
  'engine/util/excerpt.ts',
  'engine/util/step-graph.ts',
  'engine/util/string-list.ts',
  'engine/util/process-limits.ts',
];

/** Packages a pure file may import: they compute, they do not touch files, processes or sockets. */
const PURE_PACKAGES = new Set(['xstate', 'shell-quote']);

/** Shared leaf folders any area may import file by file (no index: each file is its own unit). */
const LEAF_AREAS = new Set(['engine/util', 'engine/generated']);

const BUILTINS = new Set(builtinModules);

const rel = (file) => path.relative(ROOT, file).split(path.sep).join('/');
const isPure = (relPath) => PURE.some((p) => (p.endsWith('/') ? relPath.startsWith(p) : relPath === p));

/** The project file a relative specifier names (`./x.js` is the source `./x.ts`). */
function target(fromFile, spec) {
  if (!spec.startsWith('.')) return undefined;
  const resolved = path.resolve(path.dirname(fromFile), spec).replace(/\.js$/, '.ts');
  return rel(resolved);
}

/** The area a project path belongs to: `engine/<name>` or `cli`, undefined elsewhere (tests, scripts). */
function areaOf(relPath) {
  const parts = relPath.split('/');
  if (parts[0] === 'engine' && parts.length > 2) return `engine/${parts[1]}`;
  if (parts[0] === 'cli') return 'cli';
  return undefined;
}

const isTypeOnly = (node) =>
  node.importKind === 'type' ||
  node.exportKind === 'type' ||
  (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type'));

function sources(context, check) {
  const visit = (node) => {
    if (!node.source || typeof node.source.value !== 'string') return;
    check(node, node.source.value);
  };
  return {
    ImportDeclaration: visit,
    ExportNamedDeclaration: visit,
    ExportAllDeclaration: visit,
    ImportExpression: (node) => {
      if (node.source.type === 'Literal' && typeof node.source.value === 'string') check(node, node.source.value);
    },
  };
}

const pureImports = {
  meta: {
    type: 'problem',
    docs: { description: 'pure files import no I/O: no node:*, execa or project module that is not pure' },
    schema: [],
    messages: {
      io: "'{{spec}}' is I/O, and {{file}} is a pure module (no node:*, execa or I/O module). Move the I/O to the caller and pass the result in, or import only its types with `import type`.",
      impure:
        "'{{spec}}' resolves to {{target}}, which is not a pure module, and {{file}} is pure. Import a pure module, or only types with `import type`.",
    },
  },
  create(context) {
    const file = rel(context.filename);
    if (!isPure(file)) return {};
    return sources(context, (node, spec) => {
      if (isTypeOnly(node)) return;
      if (spec.startsWith('.')) {
        const to = target(context.filename, spec);
        if (!isPure(to)) context.report({ node, messageId: 'impure', data: { spec, file, target: to } });
        return;
      }
      const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
      if (PURE_PACKAGES.has(pkg)) return;
      context.report({ node, messageId: 'io', data: { spec, file } });
    });
  },
};

const areaImports = {
  meta: {
    type: 'problem',
    docs: { description: "an area imports another area only through that area's index.ts" },
    schema: [],
    messages: {
      deep: "'{{spec}}' reaches into {{area}} past its index.ts. Import it from '{{index}}' (export it there if it belongs to the area's surface).",
    },
  },
  create(context) {
    const file = rel(context.filename);
    const from = areaOf(file);
    if (!from) return {};
    return sources(context, (node, spec) => {
      const to = target(context.filename, spec);
      if (!to) return;
      const area = areaOf(to);
      if (!area || area === from || LEAF_AREAS.has(area)) return;
      // The area's index, or the index of one of its sub-areas (engine/transports/script/index.ts): an
      // index is a surface; a plain file behind it is not.
      if (to.startsWith(`${area}/`) && to.endsWith('/index.ts')) return;
      const index = path.relative(path.dirname(file), `${area}/index.js`).split(path.sep).join('/');
      context.report({
        node,
        messageId: 'deep',
        data: { spec, area, index: index.startsWith('.') ? index : `./${index}` },
      });
    });
  },
};

export const boundaries = {
  meta: { name: 'neo-boundaries' },
  rules: { 'pure-imports': pureImports, 'area-imports': areaImports },
};
export { BUILTINS };
