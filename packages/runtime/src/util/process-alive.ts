/**
 * @module util/process-alive
 * Whether a process id names a running process on this host: how files and rows written by a
 * process (staged vector-store versions, job input files) are told apart from a dead writer's.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
