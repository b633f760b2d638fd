import { describe, expect, it } from 'vitest';
import { applyMove, columnTickets, removeTicket, upsertTicket } from '../src/web/api/cache.js';
import type { Ticket } from '../src/web/api/types.js';

/** The web app's local replay of moves must agree with the server's rule: orders 0..n-1 per column. */
const t = (id: string, columnId: string, order: number): Ticket =>
  ({ id, key: `K-${id}`, number: Number(id.replace(/\D/g, '')) || 0, title: id, columnId, order }) as Ticket;
const board = () => [t('a1', 'A', 0), t('a2', 'A', 1), t('a3', 'A', 2), t('b1', 'B', 0), t('b2', 'B', 1)];
const ids = (list: Ticket[], col: string) => columnTickets(list, col).map((x) => `${x.id}:${x.order}`);

describe('web board cache', () => {
  it('moves a ticket to another column at a position and renumbers both columns', () => {
    const out = applyMove(board(), 'a1', 'B', 1);
    expect(ids(out, 'A')).toEqual(['a2:0', 'a3:1']);
    expect(ids(out, 'B')).toEqual(['b1:0', 'a1:1', 'b2:2']);
  });

  it('moves a ticket down and up within its column', () => {
    expect(ids(applyMove(board(), 'a1', 'A', 2), 'A')).toEqual(['a2:0', 'a3:1', 'a1:2']);
    expect(ids(applyMove(board(), 'a3', 'A', 0), 'A')).toEqual(['a3:0', 'a1:1', 'a2:2']);
  });

  it('clamps a position past the end to the end of the column', () => {
    expect(ids(applyMove(board(), 'a2', 'B', 99), 'B')).toEqual(['b1:0', 'b2:1', 'a2:2']);
  });

  it('applies a remote event that changes the column as a move, and merges other fields in place', () => {
    const moved = upsertTicket(board(), { id: 'b2', columnId: 'A', order: 0, title: 'renamed' });
    expect(ids(moved, 'A')).toEqual(['b2:0', 'a1:1', 'a2:2', 'a3:3']);
    expect(moved.find((x) => x.id === 'b2')?.title).toBe('renamed');
    const renamed = upsertTicket(board(), { id: 'a2', title: 'only the title' });
    expect(ids(renamed, 'A')).toEqual(['a1:0', 'a2:1', 'a3:2']);
    expect(renamed.find((x) => x.id === 'a2')?.title).toBe('only the title');
  });

  it('adds a created ticket at its order and ignores a partial one it cannot place', () => {
    const added = upsertTicket(board(), t('b3', 'B', 2));
    expect(ids(added, 'B')).toEqual(['b1:0', 'b2:1', 'b3:2']);
    expect(upsertTicket(board(), { id: 'zz', title: 'no column' })).toHaveLength(5);
  });

  it('removes a ticket, closes the gap, and detaches its subtasks', () => {
    const list = [...board(), { ...t('s1', 'B', 2), parentId: 'a2' }];
    const out = removeTicket(list, 'a2');
    expect(ids(out, 'A')).toEqual(['a1:0', 'a3:1']);
    expect(out.find((x) => x.id === 's1')?.parentId).toBeNull();
  });
});
