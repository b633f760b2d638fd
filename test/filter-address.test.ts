/** The board's and backlog's filters in the address (docs/decisions/049-swimlanes-and-filters.md). */
import { describe, expect, it } from 'vitest';
import { filtersFromSearch, searchOfFilters } from '../src/web/lib/filter-address.js';

describe('filters in the address', () => {
  it('writes several values as comma lists and reads them back', () => {
    const f = {
      text: 'login page',
      assignee: ['me', 'none'],
      type: ['Story', 'Bug'],
      label: ['ui', 'a,b'],
      sort: 'priority-desc',
    };
    const qs = searchOfFilters(f, { sort: 'rank-asc' });
    expect(qs).toBe('q=login%20page&sort=priority-desc&assignee=me,none&type=Story,Bug&label=ui,a%2Cb');
    expect(filtersFromSearch(qs)).toEqual(f);
  });

  it('reads old single-value links, any letter case, and drops unknown types and priorities', () => {
    expect(filtersFromSearch('?type=bug&priority=HIGH,urgent&assignee=me')).toEqual({
      type: ['Bug'],
      priority: ['High'],
      assignee: ['me'],
    });
    expect(filtersFromSearch('?type=feature')).toBeNull();
    expect(filtersFromSearch('?label=ui,,ui, backend ')).toEqual({ label: ['ui', 'backend'] });
  });

  it('leaves out defaults and empty filters', () => {
    expect(searchOfFilters({ sprint: 'default', type: [], text: '' }, { sprint: 'default' })).toBe('');
    expect(searchOfFilters({ sprint: 'all', group: 'assignee' }, { sprint: 'default' })).toBe(
      'sprint=all&group=assignee',
    );
    expect(filtersFromSearch('')).toBeNull();
    expect(filtersFromSearch('?q=%E0%A4%A')).toBeNull();
  });
});
