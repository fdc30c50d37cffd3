#!/usr/bin/env node
/**
 * Copies the code every starter shares (templates/_shared) into each templates/runtime-<target>,
 * so the nine starters run the same app and only their deploy files differ.
 *
 *   node templates/sync.mjs           write the shared files into every starter
 *   node templates/sync.mjs --check   exit 1 and list the files that drifted (what the tests run)
 *
 * Edit _shared, never a starter's copy: the check fails until the copies match again.
 */
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const TEMPLATES_DIR = dirname(fileURLToPath(import.meta.url));
const SHARED_DIR = join(TEMPLATES_DIR, '_shared');

/** In the order `svc create` lists them; docker is the default. */
export const TARGETS = ['docker', 'aws', 'azure', 'fly', 'gcp', 'helm', 'modal', 'railway', 'render'];

const DESCRIPTIONS = {
  docker: 'A runtime with PostgreSQL + pgvector, run with Docker Compose',
  aws: 'A runtime deployed to AWS ECS Fargate with RDS PostgreSQL (CloudFormation)',
  azure: 'A runtime deployed to Azure Container Apps with PostgreSQL Flexible Server (Bicep)',
  fly: 'A runtime deployed to Fly.io',
  gcp: 'A runtime deployed to Google Cloud Run with Cloud SQL',
  helm: 'A runtime deployed to Kubernetes with a Helm chart',
  modal: 'A runtime served from Modal',
  railway: 'A runtime deployed to Railway',
  render: 'A runtime deployed to Render with a Blueprint',
};

/** Copied byte for byte. */
export const SHARED_FILES = ['src/main.ts', 'tsconfig.json', 'Dockerfile', '.dockerignore', '.gitignore', 'example.env'];

const read = (path) => readFileSync(join(SHARED_DIR, path), 'utf8');

/** The compose file of a starter whose root holds platform files: it lives in infra/ (svc up looks there second). */
function infraCompose(text) {
  const out = text.replace(/^(\s+context:) \.$/m, '$1 ..').replace(/^(\s+- path:) \.env$/m, '$1 ../.env');
  if (out === text) throw new Error('_shared/compose.yaml no longer has the build context and env_file lines sync.mjs rewrites');
  return out.replace(
    /^# The runtime and PostgreSQL with pgvector\./m,
    '# For local runs: the runtime and PostgreSQL with pgvector, as in production. Paths are\n# relative to this infra/ directory.',
  );
}

/** Every generated file of one starter, path relative to the starter, and its content. */
export function expectedFiles(target) {
  if (!TARGETS.includes(target)) throw new Error(`unknown target ${target}`);
  const files = new Map(SHARED_FILES.map((path) => [path, read(path)]));
  files.set(
    'package.json',
    read('package.json').replace('{{name}}', `runtime-${target}`).replace('{{description}}', DESCRIPTIONS[target]),
  );
  const compose = read('compose.yaml');
  if (target === 'docker') files.set('compose.yaml', compose);
  else files.set('infra/compose.yaml', infraCompose(compose));
  return files;
}

export const starterDir = (target) => join(TEMPLATES_DIR, `runtime-${target}`);

/** Generated files that are missing or differ from what _shared produces, as `runtime-x/path`. */
export function drift() {
  const problems = [];
  for (const target of TARGETS) {
    for (const [path, content] of expectedFiles(target)) {
      const file = join(starterDir(target), path);
      if (!existsSync(file)) problems.push(`runtime-${target}/${path} is missing`);
      else if (readFileSync(file, 'utf8') !== content) problems.push(`runtime-${target}/${path} differs from _shared`);
    }
  }
  return problems;
}

function write() {
  for (const target of TARGETS) {
    for (const [path, content] of expectedFiles(target)) {
      const file = join(starterDir(target), path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, content);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--check')) {
    const problems = drift();
    process.stdout.write(problems.length ? `${problems.join('\n')}\nRun: node templates/sync.mjs\n` : 'All starters match _shared.\n');
    process.exit(problems.length ? 1 : 0);
  }
  write();
  process.stdout.write(`Synced ${TARGETS.length} starters from _shared.\n`);
}
