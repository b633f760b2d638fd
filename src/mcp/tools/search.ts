import { z } from 'zod';
import type { SearchOut } from '../../shared/search.js';
import { defineTool, lower, READ } from './common.js';
import { cursorParam } from './paging.js';

const searchItemOut = z.object({
  key: z.string(),
  title: z.string(),
  type: z.string(),
  priority: z.string(),
  assignee: z.string().nullable(),
  dueDate: z.string().nullable(),
  updatedAt: z.string(),
});

/** search_tickets: the search grammar of docs/search.md over every project the key's user can see. */
export const searchTools = [
  defineTool({
    name: 'search_tickets',
    description: 'Search all my projects (docs/search.md).',
    input: {
      query: z.string().max(1000).describe('e.g. login assignee:me is:open priority>=high'),
      limit: z.number().int().min(1).max(100).default(20),
      cursor: cursorParam,
    },
    output: { tickets: z.array(searchItemOut), total: z.number(), nextCursor: z.string().nullable() },
    annotations: READ,
    async run(a, api) {
      const page = await api.get<SearchOut>('/api/search', {
        query: { q: a.query, limit: a.limit, ...(a.cursor ? { cursor: a.cursor } : {}) },
      });
      const tickets = page.items.map((t) => ({
        key: t.key,
        title: t.title,
        type: lower(t.type) ?? 'task',
        priority: lower(t.priority) ?? 'medium',
        assignee: t.assignee?.name ?? null,
        dueDate: t.dueDate,
        updatedAt: t.updatedAt,
      }));
      const head =
        page.total === 0
          ? 'No tickets.'
          : `${tickets.length} of ${page.total} tickets${page.nextCursor ? ` (more: cursor ${page.nextCursor})` : ''}:`;
      const lines = tickets.map(
        (t) =>
          `${t.key} ${t.title} [${t.type}, ${t.priority}]${t.assignee ? ` · ${t.assignee}` : ''}${t.dueDate ? ` · due ${t.dueDate}` : ''}`,
      );
      return {
        text: [head, ...lines].join('\n'),
        data: { tickets, total: page.total, nextCursor: page.nextCursor },
      };
    },
  }),
];
