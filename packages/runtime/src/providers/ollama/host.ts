/**
 * @module providers/ollama/host
 * Where an Ollama server is, for its chat and embeddings alike: OLLAMA_HOST-style values.
 */
import { ModelError } from '../../model/model.js';

export const OLLAMA_DEFAULT_HOST = 'http://localhost:11434';
const OLLAMA_DEFAULT_PORT = '11434';

/**
 * The base URL for an OLLAMA_HOST-style value. Ollama's own client accepts a bare `host`,
 * `host:port` or `:port` and fills in `http` and port 11434, so users' existing settings work.
 */
export function ollamaBaseUrl(host: string): string {
  let value = host.trim().replace(/\/+$/, '');
  const hasScheme = /^[a-z][a-z\d+.-]*:\/\//i.test(value);
  if (!hasScheme) value = `http://${value.startsWith(':') ? `localhost${value}` : value}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ModelError('ollama', 'MODEL_NOT_CONFIGURED', `ollama: the host "${host}" is not a URL or host:port`);
  }
  if (!hasScheme && url.port === '') url.port = OLLAMA_DEFAULT_PORT;
  return url.toString().replace(/\/+$/, '');
}
