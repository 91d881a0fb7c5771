import { Type } from 'typebox';

export const maxPageSize = 100;

/** Query schema of every paginated list: `page` >= 1 (default 1), `limit` 1..100 (default per list). */
export function paginationQuery(defaultLimit: number) {
  return {
    page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1' }),
    limit: Type.Integer({
      minimum: 1,
      maximum: maxPageSize,
      default: defaultLimit,
      description: `Items per page (1-${maxPageSize})`,
    }),
  };
}

export function pageWindow(query: { page: number; limit: number }): { offset: number; limit: number } {
  return { offset: (query.page - 1) * query.limit, limit: query.limit };
}
