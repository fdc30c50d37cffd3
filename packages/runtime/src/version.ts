/**
 * @module version
 * This package's version, reported as the runtime's version unless the user sets one.
 */
import { createRequire } from 'node:module';

export const PACKAGE_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
