/**
 * @module test/support/child-read
 * Runs child-read-process.ts on a file, so a test can see the peak memory of one read alone
 * (the test process's own RSS mixes in everything else it ran).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('./child-read-process.ts', import.meta.url));
const packageRoot = fileURLToPath(new URL('../..', import.meta.url));

export interface ChildRead {
  error?: string;
  documents?: number;
  content?: string;
  notes: string[];
  /**
   * Peak RSS of the process (the read, or the warm-up if that was larger) over its RSS after the
   * warm-up, in MB (1e6 bytes): an upper bound on what the read added to a warmed-up idle process.
   */
  peakMb: number;
}

export type ChildReader = 'docx' | 'excel' | 'pptx' | 'pdf' | 'converter';

/** Reads `data` as `name` with `kind` (inline) in a child process, after reading `warm` there. */
export async function readInChild(kind: ChildReader, data: Uint8Array, name: string, warm: Uint8Array, root = packageRoot): Promise<ChildRead> {
  const dir = mkdtempSync(join(tmpdir(), 'child-read-'));
  try {
    writeFileSync(join(dir, 'warm'), warm);
    writeFileSync(join(dir, 'file'), data);
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(process.execPath, ['--import', 'tsx', script, root, kind, join(dir, 'warm'), join(dir, 'file'), name], { cwd: root, maxBuffer: 1024 * 1024, timeout: 240_000 }, (error, out, err) =>
        error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out),
      );
    });
    const line = stdout.trim().split('\n').at(-1)!;
    const result = JSON.parse(line) as Omit<ChildRead, 'peakMb'> & { startRss: number; peakRss: number };
    return { ...(result.error === undefined ? {} : { error: result.error }), documents: result.documents, content: result.content, notes: result.notes, peakMb: Math.round((result.peakRss - result.startRss) / 1e6) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
