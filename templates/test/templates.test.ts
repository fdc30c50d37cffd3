/**
 * The nine `svc create` starters: each is a complete project (files, env, container, deploy
 * config that parses and points at the app's port and /health), every copy of the shared app
 * matches templates/_shared, and the shared app really starts, serves and stops.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseToml } from 'smol-toml';
// `yaml` is not a direct dependency: it is installed through @hono/zod-openapi (openapi3-ts)
// and vitest. Parsing beats regexes for checking the compose and platform files.
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PORT } from '@svc/runtime';
import { TARGETS, drift, expectedFiles, starterDir } from '../sync.mjs';
import { startFakeLlm } from '../../packages/runtime/test/support/fake-llm.js';

const root = resolve(import.meta.dirname, '../..');
const sharedDir = resolve(import.meta.dirname, '../_shared');
type Json = Record<string, any>;

const read = (target: string, path: string) => readFileSync(join(starterDir(target), path), 'utf8');
const readJson = (target: string, path: string) => JSON.parse(read(target, path)) as Json;
const readYaml = (target: string, path: string) => parseYaml(read(target, path)) as Json;

/** Files of one starter, relative paths, skipping local build output. */
function listFiles(dir: string, prefix = ''): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (['node_modules', 'dist', 'data', '.env'].includes(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? listFiles(path, `${prefix}${name}/`) : [`${prefix}${name}`];
  });
}

/**
 * The platform part of each starter: the files it adds and what must hold in them. Everything
 * else (app, Dockerfile, compose, env) is shared and checked for all of them below.
 */
const PLATFORMS: Record<string, { files: string[]; check: (t: string) => void }> = {
  docker: {
    files: ['compose.yaml'],
    // One compose file, at the root: svc up must not find a second, different one in infra/.
    check: (t) => expect(existsSync(join(starterDir(t), 'infra'))).toBe(false),
  },
  aws: {
    files: ['infra/cloudformation.yaml'],
    check: (t) => {
      const cfn = parseYaml(read(t, 'infra/cloudformation.yaml'), { customTags: cloudFormationTags }) as Json;
      const byType = (type: string) => Object.values(cfn.Resources as Record<string, Json>).filter((r) => r.Type === type);
      const [task] = byType('AWS::ECS::TaskDefinition');
      expect(task!.Properties).toMatchObject({ RequiresCompatibilities: ['FARGATE'], NetworkMode: 'awsvpc' });
      const container = task!.Properties.ContainerDefinitions[0];
      expect(container.PortMappings[0].ContainerPort).toBe(DEFAULT_PORT);
      expect(container.HealthCheck.Command.join(' ')).toContain(`127.0.0.1:${DEFAULT_PORT}/health`);
      expect(container.Environment).toContainEqual({ Name: 'HOST', Value: '0.0.0.0' });
      // Secrets come from Secrets Manager, never from plain environment values.
      expect(container.Secrets.map((s: Json) => s.Name).sort()).toEqual(['DATABASE_URL', 'OPENAI_API_KEY', 'OS_SECURITY_KEY']);
      expect(byType('AWS::ECS::Service')[0]!.Properties.LaunchType).toBe('FARGATE');
      expect(byType('AWS::ElasticLoadBalancingV2::TargetGroup')[0]!.Properties).toMatchObject({ Port: DEFAULT_PORT, HealthCheckPath: '/health', TargetType: 'ip' });
      expect(byType('AWS::RDS::DBInstance')[0]!.Properties).toMatchObject({ Engine: 'postgres', PubliclyAccessible: false, StorageEncrypted: true });
      expect(cfn.Parameters.DatabasePassword.NoEcho).toBe(true);
      // Every !Ref names a parameter, a resource or a pseudo parameter.
      const known = new Set([...Object.keys(cfn.Parameters), ...Object.keys(cfn.Resources), 'AWS::Region', 'AWS::StackName', 'AWS::AccountId']);
      const refs = [...read(t, 'infra/cloudformation.yaml').matchAll(/!Ref ([A-Za-z:]+)/g)].map((m) => m[1]!);
      expect(refs.filter((r) => !known.has(r))).toEqual([]);
    },
  },
  azure: {
    files: ['infra/main.bicep'],
    check: (t) => {
      const bicep = read(t, 'infra/main.bicep');
      expect(bicep).toMatch(/resource app 'Microsoft\.App\/containerApps@/);
      expect(bicep).toMatch(/'Microsoft\.DBforPostgreSQL\/flexibleServers@/);
      expect(bicep).toContain(`targetPort: ${DEFAULT_PORT}`);
      for (const type of ['Startup', 'Liveness', 'Readiness']) {
        expect(bicep).toMatch(new RegExp(`type: '${type}'\\s+httpGet: \\{ path: '/health', port: ${DEFAULT_PORT} \\}`));
      }
      // Every secret parameter is @secure(), so it never appears in deployment logs.
      for (const param of ['postgresPassword', 'openaiApiKey', 'osSecurityKey', 'registryPassword']) {
        expect(bicep).toMatch(new RegExp(`@secure\\(\\)\\n(@.*\\n)*param ${param} string`));
      }
      // Secret env vars reference Container Apps secrets that are declared.
      const refs = [...bicep.matchAll(/secretRef: '([a-z-]+)'/g)].map((m) => m[1]!);
      const declared = new Set([...bicep.matchAll(/name: '([a-z-]+)'\n\s+value:/g)].map((m) => m[1]!));
      expect(refs.filter((r) => !declared.has(r))).toEqual([]);
      expect(refs).toEqual(expect.arrayContaining(['database-url', 'openai-api-key', 'os-security-key']));
    },
  },
  gcp: {
    files: ['service.yaml', 'cloudbuild.yaml'],
    check: (t) => {
      const service = readYaml(t, 'service.yaml');
      expect(service).toMatchObject({ apiVersion: 'serving.knative.dev/v1', kind: 'Service' });
      const container = service.spec.template.spec.containers[0];
      expect(container.ports[0].containerPort).toBe(DEFAULT_PORT);
      expect(container.startupProbe.httpGet).toEqual({ path: '/health', port: DEFAULT_PORT });
      expect(container.livenessProbe.httpGet).toEqual({ path: '/health', port: DEFAULT_PORT });
      // Cloud Run rejects a service that sets PORT itself.
      expect(container.env.map((e: Json) => e.name)).not.toContain('PORT');
      const secrets = container.env.filter((e: Json) => e.valueFrom).map((e: Json) => e.name);
      expect(secrets.sort()).toEqual(['DATABASE_URL', 'OPENAI_API_KEY', 'OS_SECURITY_KEY']);
      const build = readYaml(t, 'cloudbuild.yaml');
      expect(build.steps.map((s: Json) => s.id)).toEqual(['build', 'push', 'deploy']);
      // The deploy step fills in exactly the placeholders service.yaml has.
      const placeholders = [...new Set(read(t, 'service.yaml').match(/__[A-Z_]+__/g))].sort();
      expect(placeholders).toEqual(['__CLOUDSQL_INSTANCE__', '__IMAGE__']);
      for (const p of placeholders) expect(build.steps[2].args.join('\n')).toContain(`s|${p}|`);
    },
  },
  fly: {
    files: ['fly.toml'],
    check: (t) => {
      const fly = parseToml(read(t, 'fly.toml')) as Json;
      expect(fly.build.dockerfile).toBe('Dockerfile');
      expect(fly.http_service.internal_port).toBe(DEFAULT_PORT);
      expect(fly.http_service.checks).toContainEqual(expect.objectContaining({ method: 'GET', path: '/health' }));
      expect(fly.env).toMatchObject({ HOST: '0.0.0.0', PORT: String(DEFAULT_PORT), MCP_ALLOWED_HOSTS: `${fly.app}.fly.dev` });
      expect(fly.kill_signal).toBe('SIGTERM');
      // Secrets are set with `fly secrets set`, never in [env].
      expect(Object.keys(fly.env).filter((k) => SECRET_NAME.test(k) || k === 'DATABASE_URL')).toEqual([]);
    },
  },
  railway: {
    files: ['railway.json'],
    check: (t) => {
      const railway = readJson(t, 'railway.json');
      expect(railway.build).toEqual({ builder: 'DOCKERFILE', dockerfilePath: 'Dockerfile' });
      expect(railway.deploy.healthcheckPath).toBe('/health');
      // Railway's parser rejects numbers written as strings.
      for (const key of ['healthcheckTimeout', 'restartPolicyMaxRetries', 'overlapSeconds', 'drainingSeconds']) {
        expect(typeof railway.deploy[key], key).toBe('number');
      }
    },
  },
  render: {
    files: ['render.yaml'],
    check: (t) => {
      const blueprint = readYaml(t, 'render.yaml');
      const [web] = blueprint.services;
      expect(web).toMatchObject({ type: 'web', runtime: 'docker', dockerfilePath: './Dockerfile', healthCheckPath: '/health' });
      const env = Object.fromEntries(web.envVars.map((e: Json) => [e.key, e]));
      expect(env.DATABASE_URL.fromDatabase).toEqual({ name: blueprint.databases[0].name, property: 'connectionString' });
      expect(blueprint.databases[0]).toMatchObject({ databaseName: 'runtime', postgresMajorVersion: '16' });
      // Secrets are generated by Render or asked for at creation, never written in the file.
      expect(env.OS_SECURITY_KEY).toEqual({ key: 'OS_SECURITY_KEY', generateValue: true });
      expect(env.OPENAI_API_KEY).toEqual({ key: 'OPENAI_API_KEY', sync: false });
      expect(web.envVars.filter((e: Json) => 'value' in e && SECRET_NAME.test(e.key))).toEqual([]);
    },
  },
  helm: {
    files: ['chart/Chart.yaml', 'chart/values.yaml', 'chart/templates/_helpers.tpl', 'chart/templates/deployment.yaml', 'chart/templates/service.yaml', 'chart/templates/secret.yaml'],
    check: (t) => {
      expect(readYaml(t, 'chart/Chart.yaml')).toMatchObject({ apiVersion: 'v2', name: 'runtime', type: 'application' });
      const values = readYaml(t, 'chart/values.yaml');
      expect(values.containerPort).toBe(DEFAULT_PORT);
      // No secret value is baked into the chart's defaults.
      expect(Object.values(values.secrets)).toEqual(['', '', '']);
      expect(values.podSecurityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      const templatesDir = join(starterDir(t), 'chart/templates');
      const templates = Object.fromEntries(readdirSync(templatesDir).map((f) => [f, readFileSync(join(templatesDir, f), 'utf8')]));
      // Without helm here, check what rendering depends on: every .Values path exists, every
      // block is closed, and each manifest has its kind.
      for (const [file, text] of Object.entries(templates)) {
        for (const [, path] of text.matchAll(/\.Values\.([A-Za-z0-9_.]+)/g)) {
          const value = path!.split('.').reduce<any>((node, key) => (node && key in node ? node[key] : undefined), values);
          expect(value, `${file}: .Values.${path}`).not.toBeUndefined();
        }
        const opened = text.match(/\{\{-?\s*(if|range|with|define)\b/g)?.length ?? 0;
        const closed = text.match(/\{\{-?\s*end\s*-?\}\}/g)?.length ?? 0;
        expect(closed, `${file}: unclosed blocks`).toBe(opened);
      }
      expect(templates['deployment.yaml']).toMatch(/^kind: Deployment$/m);
      expect(templates['service.yaml']).toMatch(/^kind: Service$/m);
      expect(templates['secret.yaml']).toMatch(/^kind: Secret$/m);
      const probes = [...templates['deployment.yaml']!.matchAll(/(startup|readiness|liveness)Probe:\n\s+httpGet:\n\s+path: (\S+)\n\s+port: (\S+)/g)];
      expect(probes.map((m) => `${m[1]} ${m[2]} ${m[3]}`)).toEqual(['startup /health http', 'readiness /health http', 'liveness /health http']);
      expect(templates['deployment.yaml']).toContain('containerPort: {{ .Values.containerPort }}');
      // The secret keys the deployment reads are the ones values.yaml documents.
      const keys = /range \$key := list ((?:"[A-Z_]+" ?)+)/.exec(templates['deployment.yaml']!)![1]!.match(/[A-Z_]+/g);
      expect(keys).toEqual(Object.keys(values.secrets));
    },
  },
  modal: {
    files: ['modal_app.py'],
    check: (t) => {
      const app = read(t, 'modal_app.py');
      expect(app).toContain('modal.Image.from_dockerfile("Dockerfile", add_python=');
      expect(app).toMatch(/^PORT = (\d+)$/m);
      expect(Number(/^PORT = (\d+)$/m.exec(app)![1])).toBe(DEFAULT_PORT);
      expect(app).toContain('@modal.web_server(PORT');
      expect(app).toContain('["node", "dist/main.js"]');
      expect(app).toContain('"HOST": "0.0.0.0"');
    },
  },
};

/** The compose file `svc up` picks: the first of these names in ./, then in ./infra. */
function composeFileFor(dir: string): string | undefined {
  const names = ['docker-compose.yml', 'docker-compose.yaml', 'compose.yml', 'compose.yaml'];
  for (const sub of ['', 'infra']) {
    for (const name of names) if (existsSync(join(dir, sub, name))) return join(sub, name);
  }
  return undefined;
}

/** Every variable the runtime reads from the app's environment (settings and auth mode). */
function runtimeEnvVars(): string[] {
  const sources = ['settings/server.ts', 'settings/auth-mode.ts'].map((f) => readFileSync(join(root, 'packages/runtime/src', f), 'utf8'));
  const names = new Set<string>();
  for (const text of sources) {
    for (const m of text.matchAll(/(?:\benv\.|\benv\[['"]|\(env, ['"])([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

/** Variables the app's own code reads (`env.X`, `env['X']`). */
function appEnvVars(srcDir: string): string[] {
  const names = new Set<string>();
  for (const file of readdirSync(srcDir).filter((f) => f.endsWith('.ts'))) {
    for (const m of readFileSync(join(srcDir, file), 'utf8').matchAll(/\benv(?:\.|\[['"])([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  }
  return [...names].sort();
}

/** `NAME=value` lines of an env file, commented-out ones included (they document a variable). */
function envEntries(text: string): { name: string; value: string; commented: boolean }[] {
  return text.split('\n').flatMap((line) => {
    const m = /^(#\s*)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    return m ? [{ name: m[2]!, value: m[3]!.trim(), commented: Boolean(m[1]) }] : [];
  });
}

const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD|CREDENTIAL/;
/** Shapes of real credentials; none may appear in any starter file. */
const SECRET_VALUES = [/sk-[A-Za-z0-9_-]{16,}/, /AKIA[0-9A-Z]{16}/, /-----BEGIN [A-Z ]*PRIVATE KEY-----/, /ghp_[A-Za-z0-9]{20,}/, /xox[bp]-[A-Za-z0-9-]{10,}/];

describe('starter sources', () => {
  it('every starter carries exactly the _shared app (run `node templates/sync.mjs` after editing _shared)', () => {
    expect(drift()).toEqual([]);
  });

  it('the drift check notices a starter edited by hand', () => {
    const file = join(starterDir('fly'), 'src/main.ts');
    const original = readFileSync(file, 'utf8');
    try {
      writeFileSync(file, `${original}// local edit\n`);
      expect(drift()).toEqual(['runtime-fly/src/main.ts differs from _shared']);
    } finally {
      writeFileSync(file, original);
    }
  });

  it('the runtime still reads the variables example.env documents for it', () => {
    expect(runtimeEnvVars()).toEqual(
      expect.arrayContaining(['PORT', 'HOST', 'DATABASE_URL', 'OS_SECURITY_KEY', 'JWT_VERIFICATION_KEY', 'AUTHORIZATION_ENABLED']),
    );
  });
});

describe('the starter set', () => {
  it('covers exactly the nine targets svc create offers, docker first', () => {
    expect(TARGETS).toEqual(['docker', 'aws', 'azure', 'fly', 'gcp', 'helm', 'modal', 'railway', 'render']);
    expect(Object.keys(PLATFORMS).sort()).toEqual([...TARGETS].sort());
    const dirs = readdirSync(resolve(import.meta.dirname, '..')).filter((d) => d.startsWith('runtime-'));
    expect(dirs.sort()).toEqual(TARGETS.map((t) => `runtime-${t}`).sort());
  });

  // Syntax only (ast.parse): the modal package itself is not installed here.
  const python = ['python3', 'python'].find((p) => spawnSync(p, ['--version']).status === 0);
  it.skipIf(!python)('modal_app.py is valid Python', () => {
    const result = spawnSync(python!, ['-c', 'import ast,sys; ast.parse(open(sys.argv[1]).read())', join(starterDir('modal'), 'modal_app.py')], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe.each(Object.keys(PLATFORMS))('runtime-%s', (target) => {
  const dir = starterDir(target);
  const platform = PLATFORMS[target]!;

  it('has every project file', () => {
    const required = [...expectedFiles(target).keys(), 'README.md', ...platform.files];
    expect(required.filter((f) => !existsSync(join(dir, f)))).toEqual([]);
  });

  it('package.json is a runnable ESM project on @svc/runtime', () => {
    const pkg = readJson(target, 'package.json');
    expect(pkg).toMatchObject({ name: `runtime-${target}`, type: 'module', dependencies: { '@svc/runtime': '^0.1.0' } });
    expect(Object.keys(pkg.scripts)).toEqual(expect.arrayContaining(['dev', 'build', 'start']));
    expect(pkg.scripts.start).toBe('node dist/main.js');
    // What `build` emits is what `start` and the Dockerfile run.
    const tsconfig = readJson(target, 'tsconfig.json');
    expect(tsconfig.compilerOptions).toMatchObject({ strict: true, module: 'NodeNext', outDir: 'dist', rootDir: 'src' });
  });

  it('example.env documents every variable the app reads, with no values for secrets', () => {
    const entries = envEntries(read(target, 'example.env'));
    const documented = new Set(entries.map((e) => e.name));
    const read_ = [...runtimeEnvVars(), ...appEnvVars(join(dir, 'src')), 'RUNTIME_URL'];
    expect(read_.filter((name) => !documented.has(name))).toEqual([]);
    expect(entries.find((e) => e.name === 'RUNTIME_URL')).toMatchObject({ value: '', commented: false });
    expect(entries.filter((e) => SECRET_NAME.test(e.name) && e.value !== '')).toEqual([]);
  });

  it('contains no credentials in any file', () => {
    const hits = listFiles(dir).flatMap((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      return SECRET_VALUES.filter((re) => re.test(text)).map((re) => `${file}: ${re}`);
    });
    expect(hits).toEqual([]);
  });

  it('every JSON, YAML and TOML file parses', () => {
    // Helm templates are Go templates that render to YAML; the helm entry checks them.
    const configs = listFiles(dir).filter((f) => /\.(json|ya?ml|toml)$/.test(f) && !f.includes('chart/templates/'));
    expect(configs.length).toBeGreaterThanOrEqual(3);
    expect(configs.flatMap((file) => parseProblems(file, readFileSync(join(dir, file), 'utf8')))).toEqual([]);
  });

  it('the Dockerfile builds in stages, runs unprivileged and probes /health on the app port', () => {
    const dockerfile = read(target, 'Dockerfile');
    expect(dockerfile.match(/^FROM node:20-slim/gm)).toHaveLength(2);
    expect(dockerfile).toMatch(/^USER node$/m);
    expect(Number(/^EXPOSE (\d+)$/m.exec(dockerfile)?.[1])).toBe(DEFAULT_PORT);
    expect(dockerfile).toMatch(/PORT=7777/);
    // A container must accept connections from outside itself.
    expect(dockerfile).toMatch(/HOST=0\.0\.0\.0/);
    const healthcheck = /^HEALTHCHECK .*\n.*CMD (.*)$/m.exec(dockerfile)?.[1] ?? '';
    expect(healthcheck).toContain('/health');
    expect(healthcheck).toContain(`process.env.PORT||${DEFAULT_PORT}`);
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/main\.js"\]$/m);
  });

  it('svc up finds a compose file running the runtime against PostgreSQL with pgvector', () => {
    const composePath = composeFileFor(dir);
    expect(composePath).toBe(target === 'docker' ? 'compose.yaml' : join('infra', 'compose.yaml'));
    const compose = readYaml(target, composePath!);
    const { runtime, db } = compose.services;
    expect(db.image).toBe('pgvector/pgvector:pg16');
    expect(db.healthcheck.test.join(' ')).toMatch(/pg_isready/);
    const [volume] = String(db.volumes[0]).split(':');
    expect(Object.keys(compose.volumes)).toContain(volume);
    expect(runtime.depends_on.db.condition).toBe('service_healthy');
    expect(runtime.ports).toContain(`${DEFAULT_PORT}:${DEFAULT_PORT}`);
    expect(runtime.environment.DATABASE_URL).toMatch(/^postgres:\/\/runtime:.*@db:5432\/runtime$/);
    expect(runtime.environment.HOST).toBe('0.0.0.0');
    // Relative paths resolve from the compose file's directory: both must reach the project root.
    const composeDir = dirname(join(dir, composePath!));
    expect(resolve(composeDir, runtime.build.context)).toBe(dir);
    expect(resolve(composeDir, runtime.env_file[0].path)).toBe(join(dir, '.env'));
  });

  it('the README covers create, configure, local run, deploy and the svc commands', () => {
    const readme = read(target, 'README.md');
    expect(readme).toMatch(target === 'docker' ? /svc create my-runtime/ : new RegExp(`svc create my-runtime --template runtime-${target}`));
    for (const needle of ['example.env', 'npm run dev', 'svc up', 'svc connect', '## Deploy']) expect(readme).toContain(needle);
  });

  it('passes its platform checks', () => {
    expect.hasAssertions();
    platform.check(target);
  });
});

/** Why a config file does not parse, as `file: message` lines (none when it parses). */
function parseProblems(file: string, text: string): string[] {
  try {
    if (file.endsWith('.json')) JSON.parse(text);
    else if (file.endsWith('.toml')) parseToml(text);
    else {
      const docs = parseAllDocuments(text, { customTags: cloudFormationTags });
      return (Array.isArray(docs) ? docs : []).flatMap((d) => d.errors.map((e) => `${file}: ${e.message}`));
    }
  } catch (error) {
    return [`${file}: ${(error as Error).message}`];
  }
  return [];
}

/** CloudFormation short-form intrinsics (`!Ref`, `!Sub`...), accepted as plain values. */
const cloudFormationTags = ['Ref', 'Sub', 'GetAtt', 'Join', 'Select', 'GetAZs', 'If', 'Equals', 'Not', 'Split', 'ImportValue', 'FindInMap'].flatMap((name) =>
  (['scalar', 'seq', 'map'] as const).map((nodeClass) => ({
    tag: `!${name}`,
    nodeClass: nodeClass === 'scalar' ? String : nodeClass === 'seq' ? Array : Object,
    collection: nodeClass === 'scalar' ? undefined : nodeClass,
    resolve: (value: unknown) => value,
  })),
) as any[];

// ---------------------------------------------------------------------------------------------

interface Proc {
  child: ChildProcess;
  stdout: string;
  stderr: string;
  exited: Promise<number | null>;
}

function freePort(): Promise<number> {
  return new Promise((r) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => r(port));
    });
  });
}

async function waitFor(check: () => boolean, proc: Proc, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (proc.child.exitCode !== null) throw new Error(`exited early: ${proc.stderr}`);
    if (Date.now() > deadline) throw new Error(`timed out; stdout=${proc.stdout} stderr=${proc.stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the shared app, started as `npm run dev` starts it', () => {
  const cleanup: (() => void)[] = [];
  afterEach(() => {
    while (cleanup.length) cleanup.pop()!();
  });

  it('reads .env and the environment, serves /health, /info and agent runs, and exits 0 on SIGTERM', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-starter-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    const fake = await startFakeLlm({ answer: () => 'Hello from the fake model' });
    cleanup.push(() => void fake.close());
    const port = await freePort();
    const dbPath = join(cwd, 'state', 'starter.db');
    // .env as `svc create` leaves it, edited: the environment must win over it (HOST here, an
    // address this machine cannot bind, would make the start fail otherwise).
    writeFileSync(join(cwd, '.env'), `${readFileSync(join(sharedDir, 'example.env'), 'utf8')}\nDATABASE_URL=${dbPath}\nHOST=203.0.113.7\nOPENAI_BASE_URL=${fake.url}/v1\nOPENAI_MODEL=fake-model\n`);

    const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
    // `source` resolves @svc/runtime (through the workspace's node_modules link) to its
    // TypeScript, so the test needs no build; a user's clone gets the published package.
    const child = spawn(process.execPath, ['--conditions=source', '--import', tsx, join(sharedDir, 'src/main.ts')], {
      cwd,
      env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const proc: Proc = { child, stdout: '', stderr: '', exited: new Promise((r) => child.on('exit', (code) => r(code))) };
    child.stdout!.on('data', (d: Buffer) => (proc.stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (proc.stderr += d.toString()));
    cleanup.push(() => child.kill('SIGKILL'));

    await waitFor(() => proc.stdout.includes('\n'), proc);
    expect(proc.stdout).toContain(`listening on http://127.0.0.1:${port}`);
    const base = `http://127.0.0.1:${port}`;

    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    const info = (await (await fetch(`${base}/info`)).json()) as Json;
    expect(info).toMatchObject({ os_id: 'starter', name: 'Starter', agent_count: 2, mcp: { enabled: true, path: '/mcp' }, auth_mode: 'none' });

    const run = await fetch(`${base}/agents/assistant/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Hi', stream: false }),
    });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ agent_id: 'assistant', status: 'COMPLETED', content: 'Hello from the fake model' });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]).toMatchObject({ path: '/v1/chat/completions', body: { model: 'fake-model' } });
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
    expect((fake.requests[0]!.body as Json).messages).toEqual([
      { role: 'system', content: expect.stringContaining('helpful assistant') },
      { role: 'user', content: 'Hi' },
    ]);

    child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);
    expect(proc.stderr).toMatch(/SIGTERM received/);
    // DATABASE_URL from .env was used (and no default ./data database was created).
    expect(existsSync(dbPath)).toBe(true);
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });

  it('refuses a bad PORT with one line and exit code 1', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'svc-starter-'));
    cleanup.push(() => rmSync(cwd, { recursive: true, force: true }));
    const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
    const child = spawn(process.execPath, ['--conditions=source', '--import', tsx, join(sharedDir, 'src/main.ts')], {
      cwd,
      env: { PATH: process.env.PATH ?? '', PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((r) => child.on('exit', r));
    expect(code).toBe(1);
    expect(stderr).toBe('error: PORT must be a whole number between 1 and 65535, got "eighty"\n');
    expect(existsSync(join(cwd, 'data'))).toBe(false);
  });
});
