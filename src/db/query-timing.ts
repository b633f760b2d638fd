import type { LogEvent } from 'kysely';

/**
 * Statement timing for /metrics: Kysely's log reports each query's duration; the raw array reads
 * time themselves. Nothing is recorded until an observer is set.
 */
export function queryTiming() {
  let observer: ((seconds: number) => void) | null = null;
  const took = (ms: number) => observer?.(ms / 1000);
  return {
    took,
    log: (event: LogEvent) => took(event.queryDurationMillis),
    observe: (fn: ((seconds: number) => void) | null) => {
      observer = fn;
    },
  };
}
