// Builds the web console (console/src) into console/dist, served by berth at `/`.
// No inline scripts or styles end up in the output, so the strict CSP holds.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  base: '/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsInlineLimit: 0,
    reportCompressedSize: true,
  },
});
