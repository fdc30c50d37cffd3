/**
 * @module util/logger
 * The runtime's only output channel. One line per event on stderr; credentials are never passed
 * in, so nothing here needs redaction.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

export const consoleLogger: Logger = {
  info: (m) => process.stderr.write(`${m}\n`),
  warn: (m) => process.stderr.write(`warning: ${m}\n`),
  error: (m, e) => {
    const detail = e instanceof Error ? `\n${e.stack ?? e.message}${e.cause instanceof Error ? `\ncaused by: ${e.cause.stack ?? e.cause.message}` : ''}` : '';
    process.stderr.write(`error: ${m}${detail}\n`);
  },
};

/** For tests and embedders that want silence. */
export const silentLogger: Logger = { info: () => {}, warn: () => {}, error: () => {} };
