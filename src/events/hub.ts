import { randomUUID } from 'node:crypto';
import type { EventSink, StoredEvent } from './types.js';

export type EventListener = (events: StoredEvent[]) => void;

/** A user's sessions ended: all of them, or those with the given tokens. Streams listen and close. */
export interface SessionEnd {
  userId: string;
  tokens?: string[];
  /** Or the sessions with these token hashes (the sessions list knows only hashes). */
  hashes?: string[];
}

/**
 * In-process fan-out of committed events to the streams of this instance.
 *
 * `published()` is what transact() calls after a commit. When a log follower is attached (always in
 * the app, see src/events/setup.ts), it hands the events to the follower, which delivers them from
 * memory when they follow the last delivered id and reads the log only for what it has not seen
 * (other instances' events, or a gap), calling `deliver()` in id order: events from this instance,
 * from other instances and from concurrent transactions reach the listeners once and in commit
 * order. Without a follower it delivers directly.
 */
export class EventHub implements EventSink {
  /** This instance's name in NOTIFY payloads (see EventSink.origin). */
  readonly origin = randomUUID();
  private readonly listeners = new Set<EventListener>();
  private wake: ((events: StoredEvent[]) => void) | null = null;

  /** Routes committed events through `wake` (the log follower) instead of delivering them directly. */
  attachFollower(wake: ((events: StoredEvent[]) => void) | null): void {
    this.wake = wake;
  }

  published(events: StoredEvent[]): void {
    if (this.wake) this.wake(events);
    else this.deliver(events);
  }

  /** Hands events, in id order, to every listener. */
  deliver(events: StoredEvent[]): void {
    for (const l of this.listeners) {
      try {
        l(events);
      } catch {
        // A failing listener must not stop the others.
      }
    }
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private readonly sessionListeners = new Set<(e: SessionEnd) => void>();

  sessionEnded(e: SessionEnd): void {
    for (const l of this.sessionListeners) {
      try {
        l(e);
      } catch {
        // Same as above.
      }
    }
  }

  onSessionEnded(listener: (e: SessionEnd) => void): () => void {
    this.sessionListeners.add(listener);
    return () => this.sessionListeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
