// One process of the reference implementation's concurrency run: opens a
// BetaLocalFilesystemMemoryTool on the shared base dir and makes `count` inserts into one file,
// one after the other. Prints a JSON summary on stdout.
// Usage: node bench/ref-worker.mjs <baseDir> <memoryPath> <workerIndex> <count>
import { performance } from 'node:perf_hooks';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';

const [baseDir, memoryPath, workerArg, countArg] = process.argv.slice(2);
const worker = Number(workerArg);
const count = Number(countArg);
if (!baseDir || !memoryPath || !Number.isInteger(worker) || !Number.isInteger(count)) {
  process.stderr.write('usage: node bench/ref-worker.mjs <baseDir> <memoryPath> <workerIndex> <count>\n');
  process.exit(2);
}

const tool = await BetaLocalFilesystemMemoryTool.init(baseDir);
const started = performance.now();
let done = 0;
let errors = 0;
let firstError = null;
const insertMs = [];
for (let n = 0; n < count; n++) {
  const t0 = performance.now();
  try {
    await tool.insert({ command: 'insert', path: memoryPath, insert_line: 0, insert_text: `ref w${worker} n${n}\n` });
    done++;
  } catch (err) {
    errors++;
    firstError ??= String(err?.message ?? err);
  }
  insertMs.push(Math.round((performance.now() - t0) * 100) / 100);
}
process.stdout.write(`${JSON.stringify({ worker, done, errors, firstError, ms: performance.now() - started, insertMs })}\n`);
