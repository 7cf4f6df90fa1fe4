// Module hooks (node:module register) that append each package a process imports by name, each
// of Node's own modules it imports (as `node:name`), and each chunk of the build it loads (as
// `chunk:name`, without the build's hash: `chunk:content-scanner`) to the file named by
// CAIRN_MODULE_TRACE: what a test reads to know what a command loads.
import { appendFileSync } from 'node:fs';

const CHUNK = /\/out\/main\/chunks\/(.+)-[A-Za-z0-9_-]{8}\.js$/;

export async function resolve(specifier, context, next) {
  if (!/^(\.|\/|file:|data:)/.test(specifier)) appendFileSync(process.env.CAIRN_MODULE_TRACE, `${specifier}\n`);
  const resolved = await next(specifier, context);
  const chunk = CHUNK.exec(resolved.url);
  if (chunk) appendFileSync(process.env.CAIRN_MODULE_TRACE, `chunk:${chunk[1]}\n`);
  return resolved;
}
