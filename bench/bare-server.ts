/**
 * The baseline of the HTTP benches: a bare Fastify route that serves a 1 KB JSON body, in its own
 * process like the real server. Prints `listening at <url>`.
 */
import Fastify from 'fastify';

const body = {
  items: Array.from({ length: 15 }, (_, i) => ({
    id: `0190b2c4-7d1e-7a3b-9c2d-${String(i).padStart(12, '0')}`,
    name: `item ${i}`,
    n: i,
  })),
};
const app = Fastify({ logger: false });
app.get('/bare', async () => body);
const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare body ${JSON.stringify(body).length} bytes; listening at ${address}`);
