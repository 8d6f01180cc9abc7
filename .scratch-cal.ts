import { createLocalEmbedder } from './src/embeddings/local-embedder';
console.log(createLocalEmbedder().calibration);
