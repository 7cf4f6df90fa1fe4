// Module hooks (node:module register) that append each package a process imports by name, and
// each of Node's own modules it imports (as `node:name`), to the file named by CAIRN_MODULE_TRACE:
// what a test reads to know which packages and built-in modules a command loads.
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  if (!/^(\.|\/|file:|data:)/.test(specifier)) appendFileSync(process.env.CAIRN_MODULE_TRACE, `${specifier}\n`);
  return next(specifier, context);
}
