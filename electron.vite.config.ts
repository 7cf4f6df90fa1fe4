import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';

// Main builds two entries: the Electron host (index) and the CLI / web-mode server (cli), which
// runs under plain node. The preload is CJS so the window can stay sandboxed.
// This build's id: a running host answers the prompt hook only for a hook of its own build
// (src/main/context/context-socket.ts).
const CAIRN_BUILD = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

export default defineConfig({
  main: {
    define: { __CAIRN_BUILD__: JSON.stringify(CAIRN_BUILD) },
    build: {
      // stopword is bundled, not loaded from node_modules: its package entry loads the word lists
      // of every language (~40 ms at each `cairn context`), and only the English one is used.
      externalizeDeps: { exclude: ['stopword'] },
      rolldownOptions: {
        input: {
          index: resolve(__dirname, 'src/main/electron/index.ts'),
          cli: resolve(__dirname, 'src/main/cli/bin.ts'),
        },
        output: {
          // Non-ASCII characters escaped: V8 holds an ASCII source as one byte a character, a source
          // with a single other character (an ü in a stopword list) as two, which the prompt hook's
          // start pays for (about 3% of it). Comments are not escaped: write them in ASCII.
          charset: 'ascii',
          // The prompt hook's code in two chunks, not sixteen: each module loaded costs a round
          // trip of Node's ESM loader, and `cairn context` runs before every prompt. The first
          // holds what answers it when a running Cairn does (the command and what it imports, and
          // the checkout's workspace id, which it and the harvest hook note), the second what works
          // the answer out here (loaded only then). A group takes the modules it names and what
          // they import that no group before it took.
          codeSplitting: {
            groups: [
              { name: 'context-hook', test: /src[\\/]main[\\/](cli[\\/]context-command|workspaces[\\/]session)\.ts$/, priority: 2 },
              { name: 'context-here', test: /src[\\/]main[\\/]context[\\/]context-answer\.ts$/, priority: 1 },
            ],
          },
        },
      },
    },
  },
  preload: {
    build: {
      rolldownOptions: {
        input: { index: resolve(__dirname, 'src/preload/index.ts') },
        output: { format: 'cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src/renderer'),
    plugins: [react()],
    build: {
      minify: true,
      // The editor chunk (CodeMirror, the diff view) is large and loads only when a file is opened.
      chunkSizeWarningLimit: 1024,
      rolldownOptions: { input: { index: resolve(__dirname, 'src/renderer/index.html') } },
    },
  },
});
