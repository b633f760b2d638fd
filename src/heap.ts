/**
 * V8's memory setting for the server and the command line, set before the rest is loaded (their
 * main.ts import this module first). By default V8 sizes its heap for throughput: under load it lets the heap grow
 * to several times what is live (460 MB resident with 60 MB live, in `npm run bench`).
 * `--optimize-for-size` keeps the young generation and the growth between collections small: the
 * same load then holds the server near 150 MB with no loss of throughput measured (decision 052,
 * docs/performance.md "Memory").
 */
import v8 from 'node:v8';

v8.setFlagsFromString('--optimize-for-size');
