/**
 * The pool-test worker, after a boot that takes longer than the test pool's task time limit (as
 * a thread compiling its modules on a loaded machine does): the limit must not count it.
 */
const started = Date.now();
while (Date.now() - started < 800) {
  // a slow boot
}
await import('./pool-worker.js');
