/**
 * The conversion pool from compiled JavaScript, as a deployment runs it: the runtime is built
 * with its own build config (tsc, tsconfig.build.json) into a scratch folder inside
 * node_modules (so packages resolve as from dist), and a plain `node` process, with no tsx and
 * no vitest, converts a LaTeX file and an image (OCR) through the pool. That process's workers
 * must load the compiled `worker.js` and `child.js` (the converter runs in a worker process);
 * the tests under vitest cover the TypeScript path.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { textImage } from './support/converter-fixtures.js';

const runtimeDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = join(runtimeDir, 'node_modules', '.cache', 'svc-dist-test');

beforeAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const tsc = join(runtimeDir, '..', '..', 'node_modules', 'typescript', 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-p', join(runtimeDir, 'tsconfig.build.json'), '--outDir', outDir, '--declaration', 'false', '--sourceMap', 'false'], { stdio: 'pipe' });
}, 180_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('the conversion pool from the built JavaScript', () => {
  it('starts compiled workers (worker.js) and converts through them, OCR included', () => {
    expect(existsSync(join(outDir, 'workers', 'worker.js'))).toBe(true);
    expect(existsSync(join(outDir, 'workers', 'child.js'))).toBe(true);
    const image = join(outDir, 'scan.png');
    writeFileSync(image, textImage(['Compiled workers read this'], 'png'));
    const script = `
      import { readFileSync } from 'node:fs';
      const { WorkerPool } = await import(${JSON.stringify(join(outDir, 'workers', 'pool.js'))});
      const { ConverterReader } = await import(${JSON.stringify(join(outDir, 'knowledge', 'readers', 'bytes', 'converter.js'))});
      const { DEFAULT_LIMITS, NO_TRANSCRIPTION } = await import(${JSON.stringify(join(outDir, 'settings', 'converter.js'))});
      const pool = new WorkerPool({ size: 1 });
      const reader = new ConverterReader({ offload: pool, settings: { transcription: NO_TRANSCRIPTION, limits: DEFAULT_LIMITS } });
      const tex = await reader.read({ data: '\\\\section{Built}\\nFrom \\\\textbf{dist}.', name: 'a.tex' });
      const ocr = await reader.read({ data: readFileSync(${JSON.stringify(image)}), name: 'scan.png' });
      console.log(JSON.stringify({ tex: tex[0].content, ocr: ocr[0].content, started: pool.started, processes: pool.processIds().length, execArgv: process.execArgv }));
      await pool.close();
    `;
    // No loader: a .ts worker entry could not load here, so success proves worker.js was used.
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: outDir, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    const result = JSON.parse(output.trim().split('\n').at(-1)!) as { tex: string; ocr: string; started: number; processes: number; execArgv: string[] };
    expect(result.tex).toBe('## Built\n\nFrom dist.');
    expect(result.ocr.toLowerCase()).toContain('compiled workers read this');
    expect(result.started).toBe(1);
    // The converter parses uploads in a worker process (compiled child.js), not a thread.
    expect(result.processes).toBe(1);
    expect(result.execArgv.join(' ')).not.toContain('tsx');
  }, 120_000);
});
