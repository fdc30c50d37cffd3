/**
 * @module knowledge/evals/beir
 * BEIR's folder layout read into labelled queries: `queries.jsonl` (one `{"_id", "text"}` a
 * line) and a qrels file (`query-id<TAB>corpus-id<TAB>score` a line, an optional header line).
 * Only queries with at least one judgment are kept, as BEIR evaluates them; a judged query the
 * queries file lacks, a malformed line or a negative score is refused, naming the line.
 */
import { unprocessable } from '../../errors.js';

/** A judged document: its id in the collection (matched to content ids or names) and its grade. */
export interface Judgment {
  document: string;
  grade: number;
}

/** A query with the documents judged for it. */
export interface LabelledQuery {
  id: string;
  text: string;
  judgments: Judgment[];
}

/** At most this many characters of one query's text. */
export const MAX_QUERY_CHARS = 10_000;

/** `queries.jsonl` as query id -> text. */
export function parseQueries(text: string): Map<string, string> {
  const queries = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch {
      throw unprocessable(`queries line ${i + 1} is not JSON`);
    }
    const { _id: id, text: query } = (row ?? {}) as { _id?: unknown; text?: unknown };
    if ((typeof id !== 'string' && typeof id !== 'number') || typeof query !== 'string') {
      throw unprocessable(`queries line ${i + 1} needs "_id" (a string) and "text" (a string)`);
    }
    if (query.trim() === '' || query.length > MAX_QUERY_CHARS) throw unprocessable(`queries line ${i + 1}: the text must have 1 to ${MAX_QUERY_CHARS} characters`);
    queries.set(String(id), query);
  });
  return queries;
}

/** A qrels TSV as query id -> judgments, in file order. */
export function parseQrels(text: string): Map<string, Judgment[]> {
  const qrels = new Map<string, Judgment[]>();
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === '') return;
    const cells = line.split('\t').map((c) => c.trim());
    if (i === 0 && /^query[-_ ]?id$/i.test(cells[0] ?? '')) return;
    // TREC's four columns (query, iteration, document, grade) are accepted too.
    const [query, document, score] = cells.length === 4 ? [cells[0], cells[2], cells[3]] : cells;
    if (cells.length < 3 || cells.length > 4 || !query || !document || score === undefined || !/^-?\d+(\.\d+)?$/.test(score)) {
      throw unprocessable(`qrels line ${i + 1} must be "query-id<TAB>corpus-id<TAB>score"`);
    }
    const grade = Number(score);
    if (grade < 0) throw unprocessable(`qrels line ${i + 1}: the score must not be negative`);
    const list = qrels.get(query) ?? [];
    const same = list.find((j) => j.document === document);
    if (same) same.grade = grade;
    else list.push({ document, grade });
    qrels.set(query, list);
  });
  return qrels;
}

/** The judged queries of a BEIR folder's two files, in qrels order. */
export function beirQueries(queriesText: string, qrelsText: string): LabelledQuery[] {
  const queries = parseQueries(queriesText);
  const qrels = parseQrels(qrelsText);
  if (qrels.size === 0) throw unprocessable('The qrels file has no judgments');
  const out: LabelledQuery[] = [];
  for (const [id, judgments] of qrels) {
    const text = queries.get(id);
    if (text === undefined) throw unprocessable(`qrels judge query "${id}", which the queries file does not have`);
    out.push({ id, text, judgments });
  }
  return out;
}
