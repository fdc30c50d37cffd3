/** The CLI's version, set at build time (see build.mjs); `0.0.0-dev` when run from sources. */
declare const __SVC_VERSION__: string;
export const CLI_VERSION = typeof __SVC_VERSION__ === 'string' ? __SVC_VERSION__ : '0.0.0-dev';
