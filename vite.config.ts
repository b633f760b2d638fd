import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * The board is where a signed-in user lands and works, and its page is loaded lazily: without a
 * hint, its chunk is asked for only once the app's own code has run, one more step in the chain of
 * a first load on a slow link. A `modulepreload` in index.html fetches it (and the chunks it
 * imports) beside the app's own code.
 */
function preloadBoard(): Plugin {
  return {
    name: 'docket-preload-board',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === 'chunk');
        const board = chunks.find((c) => c.facadeModuleId?.endsWith('/src/web/pages/board.tsx'));
        if (!board) return html;
        const files = [board.fileName, ...board.imports].filter((f) => !html.includes(f));
        return {
          html,
          tags: files.map((f) => ({
            tag: 'link',
            attrs: { rel: 'modulepreload', crossorigin: '', href: `./${f}` },
            injectTo: 'head' as const,
          })),
        };
      },
    },
  };
}

const api = `http://127.0.0.1:${process.env.PORT ?? 3000}`;

export default defineConfig({
  root: 'src/web',
  base: './',
  plugins: [react(), tailwindcss(), preloadBoard()],
  build: {
    outDir: '../../dist/web',
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 800,
    rolldownOptions: {
      output: {
        // Fewer, larger chunks for the first load (issue 23, docs/performance.md "Bytes on the
        // wire"): without groups, the pages' shared modules became 20-odd files of a few hundred
        // bytes to a few KB, each a request in the chain on a slow link. The app's shared code is
        // one chunk and the drag-and-drop library another; the pages, the drawer, the charts and
        // Markdown stay their own chunks, loaded when first needed.
        codeSplitting: {
          groups: [
            { name: 'common', test: /src[\\/](web[\\/](lib|api|hooks)|shared)[\\/]/, minShareCount: 2 },
            { name: 'dnd', test: /node_modules[\\/]@dnd-kit[\\/]/ },
          ],
        },
      },
    },
  },
  server: {
    port: 5173,
    proxy: { '/api': { target: api, changeOrigin: false }, '/uploads': { target: api } },
  },
});
