/**
 * @module workers/tasks
 * The tasks a conversion worker runs, by name. Each imports its module on first use.
 *
 * - `convert`: the converter reader's conversion of one file (readers/converter/convert.ts).
 * - `read`: one of the heavy byte readers (pdf, docx, excel, pptx) reading a file, as it would
 *   on the main thread (see offload.ts).
 * - `chunk`: a text-only chunker splitting one large document (see chunking.ts).
 * - `ivf-train` / `ivf-assign`: k-means and list assignment of the SQLite store's IVF index
 *   (vector-stores/ivf-kmeans.ts).
 * - `sqlite-checkpoint`: a PASSIVE checkpoint of a SQLite store's write-ahead log during a
 *   large write (vector-stores/sqlite-checkpoint.ts).
 */
import { RuntimeError } from '../errors.js';

type Task = (payload: never) => Promise<unknown>;

const TASKS: Record<string, () => Promise<Task>> = {
  convert: async () => (await import('../knowledge/readers/bytes/converter/convert.js')).convertTask as Task,
  read: async () => (await import('./offload.js')).readTask as Task,
  chunk: async () => (await import('../knowledge/chunkers/offloaded.js')).chunkTask as Task,
  'ivf-train': async () => (await import('../knowledge/vector-stores/sqlite/ivf-kmeans.js')).trainTask as Task,
  'ivf-assign': async () => (await import('../knowledge/vector-stores/sqlite/ivf-kmeans.js')).assignTask as Task,
  'sqlite-checkpoint': async () => (await import('../knowledge/vector-stores/sqlite/checkpoint.js')).checkpointTask as Task,
};

export async function runTask(name: string, payload: unknown): Promise<unknown> {
  const load = TASKS[name];
  if (!load) throw new RuntimeError('INTERNAL_SERVER_ERROR', `Unknown worker task "${name}"`);
  const task = await load();
  return task(payload as never);
}
