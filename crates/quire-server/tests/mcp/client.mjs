// Drives an MCP server with the official TypeScript SDK over streamable
// HTTP: connects (initialize), lists the tools, calls each tool of the
// JSON list given, and prints one JSON object with what came back (or the
// error that stopped it). The Rust test asserts on it.
//
//   node client.mjs <url> <bearer token or ""> '<[["tool", {args}], ...]>'
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token, callsJson] = process.argv.slice(2);
const calls = JSON.parse(callsJson || "[]");
const headers = token ? { Authorization: `Bearer ${token}` } : {};
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const client = new Client({ name: "quire-test", version: "1.0.0" });
const out = {};
try {
  await client.connect(transport);
  out.server = client.getServerVersion();
  out.protocolVersion = transport.protocolVersion ?? null;
  out.tools = (await client.listTools()).tools.map((t) => ({ name: t.name, readOnly: t.annotations?.readOnlyHint ?? null }));
  out.calls = [];
  for (const [name, args] of calls) {
    try {
      const result = await client.callTool({ name, arguments: args });
      out.calls.push({
        isError: result.isError ?? false,
        text: result.content.filter((c) => c.type === "text").map((c) => c.text).join("\n---\n"),
      });
    } catch (error) {
      out.calls.push({ protocolError: String(error?.message ?? error) });
    }
  }
  await client.close();
} catch (error) {
  out.error = String(error?.message ?? error);
}
console.log(JSON.stringify(out));
