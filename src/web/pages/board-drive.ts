/**
 * How a card is driven across the board: where a dragged card lands, how the board scrolls while
 * dragging, and what the arrow keys do in a keyboard move (docs/decisions/046-board-drive.md).
 */
import {
  type AutoScrollOptions,
  type CollisionDetection,
  closestCorners,
  type KeyboardCoordinateGetter,
  pointerWithin,
} from '@dnd-kit/core';
import { sortableKeyboardCoordinates } from '@dnd-kit/sortable';

export const COL_PREFIX = 'column:';
export type Containers = Record<string, string[]>;

/** Width of the band at each side of the board that scrolls it while a card is dragged there. */
export const EDGE_BAND_PX = 72;
/**
 * Pixels per step at the very edge, one step a frame: 500 px/s at most, slower further in. Steps
 * of a frame rather than dnd-kit's 5 ms keep a slow crawl above a whole pixel per step (a browser
 * drops smaller scroll steps).
 */
export const EDGE_STEP_MS = 16;
export const EDGE_ACCELERATION = 8;

/**
 * Auto-scroll that starts only when the pointer is inside a narrow band at the edge of the
 * scrolling area, at a speed that grows with how far into the band it is. dnd-kit takes the band as
 * a share of the area's size, so the share is worked out from the board's width.
 */
export function edgeScroll(boardWidth: number, columnHeight: number): AutoScrollOptions {
  const share = (px: number, size: number) => (size > 0 ? Math.min(0.2, px / size) : 0.05);
  return {
    threshold: { x: share(EDGE_BAND_PX, boardWidth), y: share(EDGE_BAND_PX, columnHeight) },
    acceleration: EDGE_ACCELERATION,
    interval: EDGE_STEP_MS,
  };
}

/**
 * Where a card lands: a keyboard move's chosen target first; else the card under the pointer, else
 * the column under the pointer, and only when the pointer is over neither (between columns), the
 * nearest by corners.
 */
export function boardCollisions(keyboardTarget: { current: string | null }): CollisionDetection {
  return (args) => {
    const forced = keyboardTarget.current;
    if (forced) {
      const hit = args.droppableContainers.find((c) => c.id === forced);
      if (hit) return [{ id: hit.id, data: { droppableContainer: hit, value: 0 } }];
    }
    const under = pointerWithin(args);
    const cards = under.filter((c) => !String(c.id).startsWith(COL_PREFIX));
    if (cards.length) return cards;
    if (under.length) return under;
    return closestCorners(args);
  };
}

/**
 * Arrow keys in a keyboard move: Left and Right take the card to the neighbouring column at the same
 * place (or its end), Up and Down change its place in its column.
 */
export function boardKeyboardCoordinates(opts: {
  columnOrder: () => string[];
  /** With swimlanes, Left and Right stay in the card's lane. */
  sameLane?: (a: string, b: string) => boolean;
  containers: () => Containers;
  keyboardTarget: { current: string | null };
}): KeyboardCoordinateGetter {
  return (event, args) => {
    const { context, active } = args;
    if (event.code !== 'ArrowLeft' && event.code !== 'ArrowRight') {
      opts.keyboardTarget.current = null;
      return sortableKeyboardCoordinates(event, args);
    }
    event.preventDefault();
    const containers = opts.containers();
    const order = opts.columnOrder();
    const id = String(active);
    const from = order.find((c) => containers[c]?.includes(id));
    if (!from) return undefined;
    const to = order[order.indexOf(from) + (event.code === 'ArrowRight' ? 1 : -1)];
    if (!to || (opts.sameLane && !opts.sameLane(from, to))) return undefined;
    const place = containers[from].indexOf(id);
    const target = containers[to] ?? [];
    const cardId = target[place];
    const cardRect = cardId ? context.droppableRects.get(cardId) : undefined;
    const columnRect = context.droppableRects.get(`${COL_PREFIX}${to}`);
    if (cardId && cardRect) {
      opts.keyboardTarget.current = cardId;
      return { x: cardRect.left, y: cardRect.top };
    }
    if (!columnRect) return undefined;
    opts.keyboardTarget.current = `${COL_PREFIX}${to}`;
    const last = target.length ? context.droppableRects.get(target[target.length - 1]) : undefined;
    return { x: columnRect.left + 8, y: last ? last.bottom + 6 : columnRect.top + 40 };
  };
}
