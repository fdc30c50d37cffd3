// The loopback model server for run benchmarks: answers instantly, so what remains is the
// runtime's own cost. Its own process, so it never shares an event loop with the runtime.
import { startFakeLlm } from '../../packages/runtime/test/support/fake-llm.js';

const fake = await startFakeLlm();
process.stdout.write(`LISTENING ${fake.url}\n`);
// The fake keeps every request for tests' assertions; a benchmark must not grow without bound.
const trim = setInterval(() => fake.requests.splice(0), 1000);
process.on('SIGTERM', () => {
  clearInterval(trim);
  void fake.close().then(() => process.exit(0));
});
