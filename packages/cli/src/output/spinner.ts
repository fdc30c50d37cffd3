/**
 * Progress for long steps (git clone, docker compose) on stderr, only when stderr is a TTY:
 * piped output and JSON mode stay clean.
 */
import type { Output } from './output.js';

const FRAMES = ['|', '/', '-', '\\'];

export interface Progress {
  stop(finalLine?: string): void;
}

export function startProgress(out: Output, label: string): Progress {
  if (!out.progressEnabled) return { stop: () => undefined };
  const stream = out.stderr;
  let frame = 0;
  const started = Date.now();
  const draw = (): void => {
    const seconds = Math.floor((Date.now() - started) / 1000);
    stream.write(`\r${FRAMES[frame % FRAMES.length]} ${label} (${seconds}s)`);
    frame += 1;
  };
  draw();
  const timer = setInterval(draw, 120);
  timer.unref();
  return {
    stop(finalLine?: string) {
      clearInterval(timer);
      stream.write('\r\u001b[2K');
      if (finalLine) stream.write(`${finalLine}\n`);
    },
  };
}
