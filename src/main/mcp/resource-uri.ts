/**
 * The MCP resource URIs of memory files: `cairn://memory/<scope>/<rel path>`, one per file, the
 * virtual path `/memories/<scope>/<rel path>` with `/memories` replaced by `cairn://memory` and
 * each segment percent-encoded (encodeURIComponent). So `/memories/project/notes/a b.md` is
 * `cairn://memory/project/notes/a%20b.md`.
 *
 * Invariant: a URI maps back to a virtual path only through parseMemoryPath, so a resource read
 * obeys the same path rules as the `memory` tool (no traversal, no forbidden characters); a
 * malformed URI is refused with a message naming the expected form, never a host path.
 */
import { MEMORY_ROOT, SCOPES, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { parseMemoryPath } from '../../common/memory/paths';

const MEMORY_URI_PREFIX = 'cairn://memory/';
/** The resource template clients see (RFC 6570 reserved expansion: the path keeps its slashes). */
export const MEMORY_URI_TEMPLATE = 'cairn://memory/{scope}/{+path}';

/** The resource URI of a memory file. */
export function memoryUri(scope: Scope, segments: readonly string[]): string {
  return `${MEMORY_URI_PREFIX}${scope}/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}

/** The virtual path a resource URI names; throws MemoryToolError with the expected form otherwise. */
export function virtualPathOfUri(uri: string): { scope: Scope; segments: readonly string[]; path: string } {
  const expected = `Memory resources look like ${MEMORY_URI_PREFIX}<${SCOPES.join('|')}>/<path>.`;
  if (!uri.startsWith(MEMORY_URI_PREFIX)) throw new MemoryToolError(`Unknown resource. ${expected}`);
  let decoded: string[];
  try {
    decoded = uri.slice(MEMORY_URI_PREFIX.length).split('/').map((s) => decodeURIComponent(s));
  } catch {
    throw new MemoryToolError(`The resource URI is not valid percent-encoding. ${expected}`);
  }
  // A decoded segment holding a slash would smuggle in extra levels: the path rules see it whole.
  if (decoded.some((s) => s.includes('/'))) throw new MemoryToolError(`A resource path segment may not contain an encoded "/". ${expected}`);
  const parsed = parseMemoryPath(`${MEMORY_ROOT}/${decoded.join('/')}`);
  if (parsed.kind === 'root' || parsed.segments.length === 0) throw new MemoryToolError(`A resource names one memory file. ${expected}`);
  return { scope: parsed.scope, segments: parsed.segments, path: `${MEMORY_ROOT}/${parsed.scope}/${parsed.segments.join('/')}` };
}
