// Folder order of a TypeScript source tree, for the packages' folder-order tests.
//
// A package declares which of its top-level folders (and top-level files) may import which;
// this reads every source file (tests left out), follows its relative imports, type-only and
// dynamic ones included, and reports each import that crosses folders against the table, plus
// every import cycle at any folder level (a folder's children as nodes). Plain JavaScript with
// no dependencies, so both packages' tests use it without sharing package code.
import fs from 'node:fs';
import path from 'node:path';

const SOURCE = /\.(ts|tsx|mts)$/;
const LEFT_OUT = /(\.d\.ts|\.(test|spec|contract)\.(ts|tsx))$/;
// import/export ... from '...', import '...', import('...'), import type ...
const SPECIFIER = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function walk(dir, out = []) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) walk(full, out);
    else if (SOURCE.test(entry.name) && !LEFT_OUT.test(entry.name)) out.push(full);
  }
  return out;
}

function resolveImport(from, spec, exists) {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec);
  const candidates = [base, base.replace(/\.m?js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find(exists);
}

/**
 * The import graph under `root`: absolute file -> the absolute files it imports.
 * `planted` maps a root-relative path to extra source text appended to that file (for tests).
 */
export function importGraph(root, planted = {}) {
  const files = walk(root);
  const known = new Set(files);
  const exists = (p) => known.has(p);
  const graph = new Map();
  for (const file of files) {
    const text = fs.readFileSync(file, 'utf8') + (planted[path.relative(root, file)] ?? '');
    const targets = new Set();
    for (const m of text.matchAll(SPECIFIER)) {
      const target = resolveImport(file, m[1] ?? m[2], exists);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one node (Tarjan). */
function cyclesOf(nodes, edges) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

/** Import cycles at every folder level under `root`, as "folder: a <-> b" lines. */
export function importCycles(root, graph) {
  const dirs = new Set([root]);
  for (const file of graph.keys()) {
    for (let d = path.dirname(file); d.startsWith(root) && !dirs.has(d); d = path.dirname(d)) dirs.add(d);
  }
  const lines = [];
  for (const dir of [...dirs].sort()) {
    const childOf = (f) => {
      const rel = path.relative(dir, f);
      return rel.startsWith('..') ? undefined : rel.split(path.sep)[0];
    };
    const nodes = new Set();
    const edges = new Map();
    for (const [file, targets] of graph) {
      const a = childOf(file);
      if (a === undefined) continue;
      nodes.add(a);
      for (const t of targets) {
        const b = childOf(t);
        if (b === undefined || b === a) continue;
        nodes.add(b);
        if (!edges.has(a)) edges.set(a, new Set());
        edges.get(a).add(b);
      }
    }
    for (const c of cyclesOf([...nodes], edges)) lines.push(`${path.relative(root, dir) || '.'}: ${c.join(' <-> ')}`);
  }
  return lines;
}

/**
 * Checks the top-level children of `root` against `allowed` (child -> the children it may
 * import). Returns the problems, one line each: an arrow the table does not allow (with the
 * file that draws it), a child the table does not name, and every import cycle.
 */
export function checkFolderOrder({ root, allowed, planted = {} }) {
  const graph = importGraph(root, planted);
  const problems = [];
  const top = (f) => path.relative(root, f).split(path.sep)[0];
  const unnamed = new Set();
  for (const [file, targets] of graph) {
    const from = top(file);
    if (!Object.hasOwn(allowed, from)) unnamed.add(from);
    for (const target of targets) {
      const to = top(target);
      if (to === from) continue;
      if (Object.hasOwn(allowed, from) && !allowed[from].includes(to)) {
        problems.push(`${from} -> ${to}: ${path.relative(root, file)} imports ${path.relative(root, target)}`);
      }
    }
  }
  for (const name of unnamed) problems.push(`${name}: not in the folder-order table`);
  for (const cycle of importCycles(root, graph)) problems.push(`cycle in ${cycle}`);
  return problems;
}
