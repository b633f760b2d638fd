/** The part of autocannon's API the benches use (the package ships no types). */
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p90: number;
    p99: number;
    max: number;
  }
  interface Result {
    requests: Histogram & { total: number };
    latency: Histogram;
    errors: number;
    non2xx: number;
    timeouts: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    amount?: number;
    pipelining?: number;
    headers?: Record<string, string>;
    /** Requests per second over all connections. */
    overallRate?: number;
    /** Requests sent in turn, each connection cycling through them. */
    requests?: { method: string; body?: string }[];
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
