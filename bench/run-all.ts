/**
 * `npm run bench`: every benchmark in turn, each printing its own table with its baseline.
 */
import { benchAuth } from './auth.js';
import { benchChunkers } from './chunkers.js';
import { benchCli } from './cli.js';
import { benchCluster } from './cluster.js';
import { benchEmbedding } from './embedding.js';
import { benchHttp } from './http.js';
import { benchKnowledge } from './knowledge.js';
import { benchLocalEmbedder } from './local-embedder.js';
import { benchRetrieval } from './retrieval.js';
import { benchRuns } from './runs.js';

await benchHttp();
await benchRuns();
await benchAuth();
await benchCli();
await benchCluster();
await benchChunkers();
await benchEmbedding();
await benchLocalEmbedder();
await benchKnowledge();
// The full SciFact split takes over an hour on 2 shared cores; BENCH_RETRIEVAL_QUERIES=150 samples it.
await benchRetrieval([]);
