/**
 * `npm run bench`: every benchmark in turn, each printing its own table with its baseline.
 */
import { benchCli } from './cli.js';
import { benchHttp } from './http.js';

await benchHttp();
await benchCli();
