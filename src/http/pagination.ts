// Page arithmetic for list endpoints: `page` (from 1) and `page_size` (1–100) in, SQL limit and
// offset out, and the `pagination` object back. Lists of configuration return everything when
// neither parameter is given; histories that grow without bound always page (20 by default).

export interface PageRequest {
  page: number;
  pageSize: number;
  /** null: no limit (every item) */
  limit: number | null;
  offset: number;
  /** `?name=`: only the item of this name (case-insensitive, as names are unique per parent) */
  name?: string | null;
}

export interface PageInfo { page: number; page_size: number; total_count: number; total_pages: number }

const DEFAULT_PAGE_SIZE = 20;

export function pageRequest(query: { page?: number; page_size?: number; name?: string }, kind: 'configuration' | 'history'): PageRequest {
  const name = typeof query.name === 'string' ? query.name : null;
  if (kind === 'configuration' && query.page === undefined && query.page_size === undefined) {
    return { page: 1, pageSize: 0, limit: null, offset: 0, name };
  }
  const page = query.page ?? 1;
  const pageSize = query.page_size ?? DEFAULT_PAGE_SIZE;
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize, name };
}

function pageInfo(req: PageRequest, totalCount: number): PageInfo {
  const pageSize = req.limit === null ? totalCount : req.pageSize;
  return {
    page: req.page,
    page_size: pageSize,
    total_count: totalCount,
    total_pages: pageSize === 0 ? 0 : Math.ceil(totalCount / pageSize),
  };
}

export function page<T>(req: PageRequest, results: T[], totalCount: number): { results: T[]; pagination: PageInfo } {
  return { results, pagination: pageInfo(req, totalCount) };
}
