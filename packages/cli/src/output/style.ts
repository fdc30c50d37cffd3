/**
 * Terminal colours, only when the stream is a TTY and NO_COLOR is unset (https://no-color.org).
 * Hand-rolled: a colour library would cost cold-start time for five escape codes.
 */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

export function colourEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.TERM === 'dumb') return false;
  return stream.isTTY === true;
}

function wrap(enabled: boolean, open: number, close: number): (text: string) => string {
  return enabled ? (text) => `\u001b[${open}m${text}\u001b[${close}m` : (text) => text;
}

export function makeStyle(enabled: boolean): Style {
  return {
    bold: wrap(enabled, 1, 22),
    dim: wrap(enabled, 2, 22),
    red: wrap(enabled, 31, 39),
    yellow: wrap(enabled, 33, 39),
    green: wrap(enabled, 32, 39),
    cyan: wrap(enabled, 36, 39),
  };
}
