/**
 * @module settings/content-limits
 * The budgets where an upload's bytes expand while it is read (zip-based files and PDF streams),
 * read by the byte readers and the converter. Each is counted on the bytes really produced,
 * whatever the file's headers declare, and a file past one is refused (422) naming it:
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | `KNOWLEDGE_MAX_INFLATED_MB` | 256 | everything one file inflates to while it is read: every part of a .docx/.xlsx/.pptx/.epub each time it is read, or a PDF's decoded streams (images and attachments aside) |
 * | `KNOWLEDGE_MAX_PART_MB` | 64 | one part of such a file (a spreadsheet's sheet, parsed as a stream), or one PDF stream, inflated |
 * | `KNOWLEDGE_MAX_XML_PART_MB` | 8 | one XML or XHTML part parsed whole into a tree (Word parts through mammoth, slides, EPUB chapters), where each MB costs 50-250 MB of memory (mammoth on dense markup the most) |
 *
 * The defaults keep one read within about 1 GB over the process's idle size, except a .docx
 * whose Word part is close to the XML part limit and dense with tiny elements (mammoth: ~1.4 GB
 * at 7 MiB); docs/ARCHITECTURE.md has the measurements. Images are bounded by `CONVERTER_OCR_MAX_PIXELS` (settings/converter).
 */
import { z } from 'zod';
import { readEnvironment, type Environment } from './environment.js';
import { wholeNumber } from './fields.js';

const MB = 1024 * 1024;

export interface ContentLimits {
  /** Bytes one file may inflate to in all (every part read counted each time it is read). */
  maxInflatedBytes: number;
  /** Bytes one part (or one PDF stream) may inflate to. */
  maxPartBytes: number;
  /** Bytes of one XML part that is parsed whole into a tree. */
  maxXmlPartBytes: number;
}

export const DEFAULT_CONTENT_LIMITS: ContentLimits = {
  maxInflatedBytes: 256 * MB,
  maxPartBytes: 64 * MB,
  maxXmlPartBytes: 8 * MB,
};

/** The variable that sets each limit, for the messages that name it. */
export const CONTENT_LIMIT_VARIABLES: Record<keyof ContentLimits, string> = {
  maxInflatedBytes: 'KNOWLEDGE_MAX_INFLATED_MB',
  maxPartBytes: 'KNOWLEDGE_MAX_PART_MB',
  maxXmlPartBytes: 'KNOWLEDGE_MAX_XML_PART_MB',
};

// At most 2047 MB: the xlsx reader hands exceljs a stored zip of the parts, and JSZip reads
// offsets of 2 GiB and more as negative numbers.
const megabytes = (fallback: number) => wholeNumber({ min: 1, max: 2047, default: fallback / MB });

export const contentLimitsSchema = z
  .object({
    KNOWLEDGE_MAX_INFLATED_MB: megabytes(DEFAULT_CONTENT_LIMITS.maxInflatedBytes),
    KNOWLEDGE_MAX_PART_MB: megabytes(DEFAULT_CONTENT_LIMITS.maxPartBytes),
    KNOWLEDGE_MAX_XML_PART_MB: megabytes(DEFAULT_CONTENT_LIMITS.maxXmlPartBytes),
  })
  .transform(
    (env): ContentLimits => ({
      maxInflatedBytes: env.KNOWLEDGE_MAX_INFLATED_MB * MB,
      maxPartBytes: env.KNOWLEDGE_MAX_PART_MB * MB,
      maxXmlPartBytes: env.KNOWLEDGE_MAX_XML_PART_MB * MB,
    }),
  );

/** The content limits in `env`; throws ConfigurationError on a malformed value. */
export function readContentLimits(env: Environment = process.env): ContentLimits {
  return readEnvironment(contentLimitsSchema, env);
}

/** `268435456` -> `256 MB`; sizes that are not whole MB keep their bytes. */
export function sizeText(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes} bytes`;
}
