/**
 * `npm start`: serve the quickstart runtime on PORT (7777) and HOST (localhost) until SIGINT or
 * SIGTERM, then finish in-flight requests and close the database.
 */
import { serveUntilStopped } from '@svc/runtime';
import { createQuickstartRuntime } from './runtime.js';

await serveUntilStopped(createQuickstartRuntime);
