import '../heap.js';
import { serve } from './serve.js';

serve().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
