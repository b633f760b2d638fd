import { serve } from './serve.js';

serve().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
if (process.env.DOCKET_DEBUG_MEMORY)
  setInterval(() => {
    const m = process.memoryUsage();
    console.error(
      `MEM rss=${m.rss >> 20} heapTotal=${m.heapTotal >> 20} heapUsed=${m.heapUsed >> 20} external=${m.external >> 20} arrayBuffers=${m.arrayBuffers >> 20}`,
    );
  }, 3000).unref();
