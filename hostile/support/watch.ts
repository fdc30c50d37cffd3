/**
 * Watches a runtime process's memory from outside while hostile content goes in: its resident
 * memory with every process it started (the worker processes), sampled from /proc. (Its
 * `/health` latency is the shared loop-probe's.)
 */
import { readFileSync } from 'node:fs';

/** Resident memory of one process in MiB, 0 once it is gone. */
export function rssMiB(pid: number): number {
  try {
    return Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
  } catch {
    return 0;
  }
}

/** `pid` and every process below it. */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    const parent = all[i]!;
    let tasks: string[] = [];
    try {
      tasks = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
    } catch {
      // The process ended between two reads.
    }
    all.push(...tasks.map(Number));
  }
  return all;
}

export interface Sample {
  at: number;
  /** The runtime process alone. */
  runtime: number;
  /** The runtime with its worker processes. */
  total: number;
}

/** Samples memory every `everyMs` until stopped. */
export function memorySampler(pid: number, everyMs = 25) {
  const samples: Sample[] = [];
  const take = () => {
    const tree = processTree(pid);
    const runtime = rssMiB(pid);
    samples.push({ at: Date.now(), runtime, total: runtime + tree.slice(1).reduce((sum, p) => sum + rssMiB(p), 0) });
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop: () => clearInterval(timer),
    /** The highest sample in [from, to]. */
    peak(from = 0, to = Number.POSITIVE_INFINITY): Sample {
      const window = samples.filter((s) => s.at >= from && s.at <= to);
      return window.reduce((top, s) => (s.total > top.total ? s : top), window[0] ?? samples.at(-1)!);
    },
  };
}
