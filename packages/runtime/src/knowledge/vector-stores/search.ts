/**
 * @module knowledge/vector-stores/search
 * What every store does the same way around its own SQL: parse, dispatch, fuse hybrid (fusion.ts).
 *
 * The filters are checked once, the search type picks the store's vector or keyword side (each
 * given the request's owner scope), and hybrid asks both for more candidates and fuses their
 * normalised scores.
 */
import { asScope, type ChunkScope } from './chunk-scope.js';
import { RuntimeError } from '../../errors.js';
import { parseFilters, type Filter } from './filter-language.js';
import { convexFusion, HYBRID_CANDIDATES } from './fusion.js';
import type { SearchHit, SearchRequest } from './vector-store.js';

/** A store's two kinds of query; `visibleTo` is the request's owner scope. */
export interface SearchSides {
  vector(vector: number[], limit: number, filter: Filter | undefined, visibleTo: ChunkScope | undefined): SearchHit[] | Promise<SearchHit[]>;
  keyword(query: string, limit: number, filter: Filter | undefined, visibleTo: ChunkScope | undefined): SearchHit[] | Promise<SearchHit[]>;
}

export async function searchWith(request: SearchRequest, sides: SearchSides): Promise<SearchHit[]> {
  const filters = request.filter ?? parseFilters(request.filters);
  const who = asScope(request.visibleTo);
  switch (request.searchType) {
    case 'vector':
      return sides.vector(requireVector(request), request.limit, filters, who);
    case 'keyword':
      return sides.keyword(request.query, request.limit, filters, who);
    case 'hybrid': {
      const wide = request.limit * HYBRID_CANDIDATES;
      // Keyword first: a store that answers it on another thread (sqlite/reader-thread.ts)
      // then scores both at once, the vector side here meanwhile.
      const queryVector = requireVector(request);
      const keyword = sides.keyword(request.query, wide, filters, who);
      let vector: SearchHit[] | Promise<SearchHit[]>;
      try {
        vector = sides.vector(queryVector, wide, filters, who);
      } catch (error) {
        // The keyword side's answer is no longer wanted; its failure must not go unhandled.
        void Promise.resolve(keyword).catch(() => undefined);
        throw error;
      }
      const [vectorHits, keywordHits] = await Promise.all([vector, keyword]);
      return convexFusion(vectorHits, keywordHits, request.limit);
    }
  }
}

function requireVector(request: SearchRequest): number[] {
  if (!request.vector) throw new RuntimeError('BAD_REQUEST', `${request.searchType} search needs a query embedding`);
  return request.vector;
}
