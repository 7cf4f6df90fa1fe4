/**
 * The answer to an MCP `initialize` request, made without the MCP SDK: `cairn mcp`
 * answers an agent's first message with the session's instructions while the SDK, the home's
 * services and the server are still loading (about 150 ms of a 250 ms start). The SDK's server is
 * then given the same request, so it knows the client, and its own answer is dropped
 * (CairnStdioTransport.skipAnswer); mcp-early.test.ts checks, for every protocol version, that
 * both answers are the same bytes.
 *
 * Invariant: only a request the SDK would accept as it is gets an early answer: a plain JSON-RPC
 * request (no other members: the SDK's request schema is strict) whose params fit the SDK's
 * initialize schema, checked here member by member for the shapes clients send. Whatever is in
 * doubt (a capability whose shape is deep, icons, `_meta`) waits for the SDK, which answers it as
 * before; declining costs only time, a wrong early answer would break the session.
 */
import { SERVER_NAME, SERVER_VERSION } from '../context/session-context';

/** The protocol versions the SDK's server speaks, newest first (its SUPPORTED_PROTOCOL_VERSIONS). */
export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'] as const;

/** What the server offers: what McpServer declares once Cairn's tools, prompts and resources are registered. */
const SERVER_CAPABILITIES = {
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: true },
  prompts: { listChanged: true },
} as const;

/** The longest first line looked at for an early answer (a real initialize is a few hundred bytes). */
const EARLY_LINE_MAX_BYTES = 64 * 1024;

export interface InitializeRequest {
  readonly id: string | number;
  readonly protocolVersion: string;
}

type Check = (v: unknown) => boolean;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isString: Check = (v) => typeof v === 'string';
const isBoolean: Check = (v) => typeof v === 'boolean';
/** Absent, or passing `check` (JSON has no undefined, so absent is the only undefined). */
const optional = (v: unknown, check: Check): boolean => v === undefined || check(v);
/** An object every member of which passes `check` (the SDK's records of objects). */
const objectOf =
  (check: Check): Check =>
  (v) =>
    isObject(v) && Object.values(v).every(check);

const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/** The client capabilities the SDK's schema (ClientCapabilitiesSchema) surely takes; unknown ones it drops. */
function capabilitiesFit(c: Record<string, unknown>): boolean {
  return (
    optional(c.experimental, objectOf(isObject)) &&
    optional(c.extensions, objectOf(isObject)) &&
    optional(c.sampling, (s) => isObject(s) && optional(s.context, isObject) && optional(s.tools, isObject)) &&
    optional(c.elicitation, (e) => isObject(e) && optional(e.form, (f) => isObject(f) && optional(f.applyDefaults, isBoolean)) && optional(e.url, isObject)) &&
    optional(c.roots, (r) => isObject(r) && optional(r.listChanged, isBoolean)) &&
    // Deep and still changing between versions: the SDK judges it.
    c.tasks === undefined
  );
}

/** clientInfo as the SDK's ImplementationSchema surely takes it (icons are left to the SDK). */
function clientInfoFits(i: Record<string, unknown>): boolean {
  return isString(i.name) && isString(i.version) && optional(i.title, isString) && optional(i.websiteUrl, isString) && optional(i.description, isString) && i.icons === undefined;
}

/**
 * The initialize request `line` holds, if it is one the SDK would take as it is (see the module
 * header); else null, and the SDK answers it.
 */
export function initializeRequestOf(line: string): InitializeRequest | null {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return null;
  }
  if (!isObject(message) || message.jsonrpc !== '2.0' || message.method !== 'initialize') return null;
  if (!Object.keys(message).every((k) => REQUEST_MEMBERS.has(k))) return null;
  const { id, params } = message;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return null;
  if (!isObject(params) || typeof params.protocolVersion !== 'string' || params._meta !== undefined) return null;
  const { capabilities, clientInfo } = params;
  if (!isObject(capabilities) || !capabilitiesFit(capabilities)) return null;
  if (!isObject(clientInfo) || !clientInfoFits(clientInfo)) return null;
  return { id, protocolVersion: params.protocolVersion };
}

/** The answer the SDK's server gives `request`, with `instructions`, as the line it writes. */
export function initializeAnswerLine(request: InitializeRequest, instructions: string): string {
  const known = (PROTOCOL_VERSIONS as readonly string[]).includes(request.protocolVersion);
  const result = {
    protocolVersion: known ? request.protocolVersion : PROTOCOL_VERSIONS[0],
    capabilities: SERVER_CAPABILITIES,
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
    ...(instructions ? { instructions } : {}),
  };
  return `${JSON.stringify({ result, jsonrpc: '2.0', id: request.id })}\n`;
}

/** The first line of a stream, read ahead of its reader. */
export interface FirstLine {
  /** The line (without its newline, or a CR before it); null when none came within the limit. */
  readonly line: string | null;
  /** Whether the stream ended (or failed) while it was read: nothing more will come. */
  readonly ended: boolean;
}

/**
 * Reads `input` up to its first newline (at most `maxBytes`), then stops reading it and puts back
 * every byte read (`unshift`), line included, so the reader that comes next (the transport, once
 * the server has loaded) gets the stream whole and in order; until then the stream stays paused,
 * so what the client sends meanwhile waits in the pipe. A stream that ends first has nothing a
 * reader could use (a line without its newline is never a message), so nothing is put back.
 */
export function peekFirstLine(input: NodeJS.ReadableStream, maxBytes = EARLY_LINE_MAX_BYTES): Promise<FirstLine> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (line: string | null, ended: boolean) => {
      input.off('data', onData);
      input.off('end', onEnd);
      input.off('error', onEnd);
      if (!ended) {
        input.pause();
        if (size > 0) input.unshift(Buffer.concat(chunks, size));
      }
      resolve({ line, ended });
    };
    const onData = (data: Buffer | string) => {
      const chunk = typeof data === 'string' ? Buffer.from(data) : data;
      const newline = chunk.indexOf(0x0a);
      chunks.push(chunk);
      if (newline !== -1 && size + newline <= maxBytes) {
        const line = Buffer.concat(chunks, size + newline).toString('utf8');
        size += chunk.length;
        return finish(line.endsWith('\r') ? line.slice(0, -1) : line, false);
      }
      size += chunk.length;
      if (newline !== -1 || size > maxBytes) finish(null, false);
    };
    const onEnd = () => finish(null, true);
    input.on('data', onData);
    input.once('end', onEnd);
    input.once('error', onEnd);
  });
}
