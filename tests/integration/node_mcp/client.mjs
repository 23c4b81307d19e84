// A third-party MCP client: the official TypeScript SDK drives `retrieval mcp` and prints what it saw.
// Usage: node client.mjs stdio COMMAND ARG...   |   node client.mjs http URL (with $RETRIEVAL_MCP_HTTP_TOKEN)
// Reads the calls to make as JSON on stdin: [{"name": ..., "arguments": {...}}, ...]
// Prints one JSON object: {"tools": [...], "results": [...]} (each result as the SDK returned it).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

const [kind, target, ...rest] = process.argv.slice(2);
const calls = await readStdin();
const transport =
  kind === "stdio"
    ? new StdioClientTransport({ command: target, args: rest, env: process.env, cwd: process.cwd(), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target), {
        requestInit: { headers: { Authorization: `Bearer ${process.env.RETRIEVAL_MCP_HTTP_TOKEN}` } },
      });
const client = new Client({ name: "retrieval-ts-sdk-test", version: "1.0.0" });
await client.connect(transport);
try {
  const { tools } = await client.listTools();
  const results = [];
  for (const call of calls) {
    results.push(await client.callTool({ name: call.name, arguments: call.arguments }));
  }
  process.stdout.write(JSON.stringify({ server: client.getServerVersion(), tools, results }));
} finally {
  await client.close();
}
