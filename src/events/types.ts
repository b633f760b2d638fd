import type { EventPayload, EventScope, EventType } from '../shared/events.js';

/** An event a use case emits inside its transaction: `data` is typed by its `type` (EVENT_PAYLOADS). */
export type NewEvent = {
  [T in Exclude<EventType, 'resync'>]: EventRouting & { type: T; data: EventPayload<T> };
}[Exclude<EventType, 'resync'>];

/** Where an event goes (docs/decisions/017-event-streams.md). */
interface EventRouting {
  scope: EventScope;
  projectId?: string | null;
  userId?: string | null;
  /** Users who may see it, when membership cannot be looked up at delivery (a deleted project). */
  audience?: string[] | null;
}

/** An event as written to the log: the id is the SSE id. */
export interface StoredEvent {
  id: number;
  scope: EventScope;
  type: EventType;
  data: unknown;
  projectId: string | null;
  userId: string | null;
  audience: string[] | null;
  tabId: string | null;
  timestamp: string;
}

/** Receives events after their transaction committed. */
export interface EventSink {
  published(events: StoredEvent[]): void;
  /**
   * This instance's name in the log's PostgreSQL NOTIFY payload, so that it can tell its own
   * commits (delivered from memory) from other instances' (read from the log). Null: no streams.
   */
  readonly origin: string | null;
}
