/**
 * What the agent's tool and a person's edits share: a parsed virtual path placed in its scope, the
 * scope it needs (available, or an error saying why not), a file read as UTF-8, the bytes a write
 * may store, and the usage a command records.
 *
 * Invariants: nothing here touches the filesystem before the path rules have passed (the callers
 * parse first); texts name virtual paths only.
 */
import { MAX_FILE_BYTES, type Actor, type Scope } from '../../common/memory/constants';
import { MemoryToolError } from '../../common/memory/errors';
import { memoryIdentity } from '../../common/memory/identity';
import { formatMemoryPath, type VirtualPath } from '../../common/memory/paths';
import { errors } from '../../common/memory/texts';
import { scanContent } from './scanners/content-scanner';
import type { AvailableScope, MemorySession } from './session';
import type { UsageStore } from './usage-store';

/** A location inside one scope, with the virtual path the texts show for it. */
export interface InScope {
  readonly scope: Scope;
  readonly segments: readonly string[];
  readonly path: string;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

export function encodeUtf8(text: string): Uint8Array {
  return utf8Encoder.encode(text);
}

/** A parsed path inside a scope, as the texts show it (no trailing slash; a scope root canonical). */
export function place(target: Extract<VirtualPath, { kind: 'scope' }>, raw: string): InScope {
  const path = raw.endsWith('/') && target.segments.length > 0 ? raw.slice(0, -1) : raw;
  return { scope: target.scope, segments: target.segments, path: target.segments.length === 0 ? formatMemoryPath(target.scope) : path };
}

/** The session's binding of `scope`, or the error saying why it is unavailable. */
export function availableScope(session: MemorySession, scope: Scope): AvailableScope {
  const b = session.scopes[scope];
  if (!b.available) throw new MemoryToolError(errors.unavailable(scope, b.reason));
  return b;
}

/** Reads a file as UTF-8 text; RuntimeErrors pass through for the caller to map (error-mapper.ts). */
export async function readText(b: AvailableScope, target: InScope): Promise<string> {
  const file = await b.runtime.readFile(b.root, target.segments, MAX_FILE_BYTES);
  try {
    return utf8Decoder.decode(file.data);
  } catch {
    throw new MemoryToolError(errors.notUtf8(target.path));
  }
}

/** Decodes bytes read for an edit as UTF-8 text, or fails naming the file. */
export function decodeText(data: Uint8Array, path: string): string {
  try {
    return utf8Decoder.decode(data);
  } catch {
    throw new MemoryToolError(errors.notUtf8(path));
  }
}

/**
 * The bytes to store for `content`: UTF-8 text within the cap, and, for an agent's write, free of
 * secrets and injected instructions (a person is warned instead, by the UI).
 */
export function encodeContent(path: string, content: string, actor: Actor): Uint8Array {
  if (!content.isWellFormed() || content.includes('\0')) throw new MemoryToolError(errors.notText(path));
  if (actor === 'agent') {
    const findings = scanContent(content);
    if (findings.length > 0) {
      const others = [...new Set(findings.slice(1).map((f) => `${f.rule} (line ${f.line})`))];
      throw new MemoryToolError(errors.contentRejected(path, findings[0]!.message, others));
    }
  }
  const data = utf8Encoder.encode(content);
  if (data.length > MAX_FILE_BYTES) throw new MemoryToolError(errors.fileTooLarge(path, data.length));
  return data;
}

/** Records a use of `target` (`writtenBy`: the writer, or null for a read); without a store, nothing. */
export function recordUse(usage: UsageStore | undefined, session: MemorySession, target: InScope, writtenBy: Actor | null): void {
  const id = memoryIdentity(target.scope, session, target.segments);
  if (usage && id !== null) usage.record({ type: 'use', id, at: new Date().toISOString(), write: writtenBy !== null, ...(writtenBy ? { by: writtenBy } : {}) });
}
