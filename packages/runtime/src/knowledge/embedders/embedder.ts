/**
 * @module knowledge/embedders/embedder
 * The Embedder interface under the path the chunkers and the ingestion pipeline import it by.
 * It is defined in model/embedder.ts, beside the chat Model, so that the providers implementing
 * it (providers/) need nothing from knowledge/; this re-export goes once those folders import
 * it from model/ directly.
 */
export type { Embedder, EmbedOptions } from '../../model/embedder.js';
