/**
 * `npm run samples` (and the quickstart's build): writes the PDF and Office files of the sample
 * corpus into `samples/`, next to the committed markdown, CSV and JSON ones.
 */
import { relative } from 'node:path';
import { writeGeneratedSamples } from './samples.js';

const written = await writeGeneratedSamples();
process.stdout.write(`samples: wrote ${written.map((p) => relative(process.cwd(), p)).join(', ')}\n`);
