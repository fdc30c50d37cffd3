/**
 * @module providers/local/errors
 * How the local embedder fails: LocalEmbedderError, a RuntimeError with a stable `reason`, so
 * uploads fail and searches answer with the one error envelope and a message that says what
 * went wrong, and an ingestion job knows whether to retry (503) or to fail the record (422).
 */
import { RuntimeError, type ErrorCode } from '../../errors.js';

export type LocalEmbedderFailure =
  /** The model's files could not be read or turned into a model (a damaged install, no memory). */
  | 'model_unavailable'
  /** The model refused these texts. */
  | 'encode_failed'
  /** The worker process died, ran past its memory or time limit, or the pool was closed. */
  | 'worker_failed';

const CODES: Record<LocalEmbedderFailure, ErrorCode> = {
  model_unavailable: 'SERVICE_UNAVAILABLE',
  encode_failed: 'VALIDATION_ERROR',
  worker_failed: 'SERVICE_UNAVAILABLE',
};

export class LocalEmbedderError extends RuntimeError {
  readonly reason: LocalEmbedderFailure;

  constructor(reason: LocalEmbedderFailure, detail: string) {
    super(CODES[reason], detail);
    this.name = 'LocalEmbedderError';
    this.reason = reason;
  }
}
