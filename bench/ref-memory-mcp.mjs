// The protocol's reference memory tool (BetaLocalFilesystemMemoryTool, @anthropic-ai/sdk) behind a
// minimal MCP stdio server: one `memory` tool with the same flat input as Cairn's, each command
// handed to the reference as is, a thrown error returned as a tool error `Error: <message>`. It is
// what a person would write to put the reference behind MCP: nothing more (no locks, no journal).
// Usage: node bench/ref-memory-mcp.mjs <baseDir>   (memory lives in <baseDir>/memories)
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BetaLocalFilesystemMemoryTool } from '@anthropic-ai/sdk/tools/memory/node';
import { z } from 'zod';

const baseDir = process.argv[2];
if (!baseDir) {
  process.stderr.write('usage: node bench/ref-memory-mcp.mjs <baseDir>\n');
  process.exit(2);
}
const tool = await BetaLocalFilesystemMemoryTool.init(baseDir);
const server = new McpServer({ name: 'reference-memory', version: '1.0.0' });
server.registerTool(
  'memory',
  {
    description: 'The reference memory tool (view, create, str_replace, insert, delete, rename under /memories).',
    inputSchema: {
      command: z.enum(['view', 'create', 'str_replace', 'insert', 'delete', 'rename']),
      path: z.string().optional(),
      view_range: z.array(z.number().int()).optional(),
      file_text: z.string().optional(),
      old_str: z.string().optional(),
      new_str: z.string().optional(),
      insert_line: z.number().int().optional(),
      insert_text: z.string().optional(),
      old_path: z.string().optional(),
      new_path: z.string().optional(),
    },
  },
  async (args) => {
    try {
      const text = await tool[args.command](args);
      return { content: [{ type: 'text', text }] };
    } catch (err) {
      return { content: [{ type: 'text', text: `Error: ${err?.message ?? String(err)}` }], isError: true };
    }
  },
);
await server.connect(new StdioServerTransport());
