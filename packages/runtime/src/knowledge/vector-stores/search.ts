/**
 * @module knowledge/vector-stores/search
 * What every store does the same way around its own SQL: check the filters, pick vector,
 * keyword or hybrid search, and fuse hybrid results by rank.
 */
import { RuntimeError } from '../../errors.js';
import { parseFilters, type Filter } from './filter-language.js';
import { HYBRID_CANDIDATES, reciprocalRankFusion } from './fusion.js';
import type { SearchHit, SearchRequest } from './vector-store.js';

/** A store's two kinds of query. */
export interface SearchSides {
  vector(vector: number[], limit: number, filter: Filter | undefined): SearchHit[] | Promise<SearchHit[]>;
  keyword(query: string, limit: number, filter: Filter | undefined): SearchHit[] | Promise<SearchHit[]>;
}

export async function searchWith(request: SearchRequest, sides: SearchSides): Promise<SearchHit[]> {
  const filters = request.filter ?? parseFilters(request.filters);
  switch (request.searchType) {
    case 'vector':
      return sides.vector(requireVector(request), request.limit, filters);
    case 'keyword':
      return sides.keyword(request.query, request.limit, filters);
    case 'hybrid': {
      const wide = request.limit * HYBRID_CANDIDATES;
      // Keyword first: a store that answers it on another thread (sqlite-reader.ts) then scores
      // both at once, the vector side here meanwhile.
      const queryVector = requireVector(request);
      const keyword = sides.keyword(request.query, wide, filters);
      let vector: SearchHit[] | Promise<SearchHit[]>;
      try {
        vector = sides.vector(queryVector, wide, filters);
      } catch (error) {
        // The keyword side's answer is no longer wanted; its failure must not go unhandled.
        void Promise.resolve(keyword).catch(() => undefined);
        throw error;
      }
      return reciprocalRankFusion(await Promise.all([vector, keyword]), request.limit);
    }
  }
}

function requireVector(request: SearchRequest): number[] {
  if (!request.vector) throw new RuntimeError('BAD_REQUEST', `${request.searchType} search needs a query embedding`);
  return request.vector;
}

export function embedderConflict(stored: string, given: string): RuntimeError {
  return new RuntimeError('CONFLICT', `This knowledge store holds vectors from ${stored}; refusing vectors from ${given}. Use a new table to change embedders.`);
}
