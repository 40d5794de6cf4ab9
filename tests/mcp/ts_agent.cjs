// An agent on the TypeScript MCP SDK: saves a sequence, runs it with a short request timeout that
// progress resets (as the SDK's clients do), prints each progress as a JSON line, then the result.
// Usage: node ts_agent.cjs URL SEQUENCE_JSON TIMEOUT_MS   (NODE_PATH: the folder holding the SDK)
const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");

async function main() {
  const [url, sequenceJson, timeoutMs] = process.argv.slice(2);
  const sequence = JSON.parse(sequenceJson);
  const client = new Client({ name: "ts-agent", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const saved = await client.callTool({ name: "seq_create", arguments: sequence });
  if (saved.isError) throw new Error("seq_create: " + JSON.stringify(saved));
  let heard = 0;
  const result = await client.callTool({ name: "seq_run", arguments: { name: sequence.name } }, undefined, {
    timeout: Number(timeoutMs),
    resetTimeoutOnProgress: true,
    onprogress: (p) => { heard += 1; console.log(JSON.stringify({ progress: heard, message: p.message })); },
  });
  console.log(JSON.stringify(result));
  await client.close();
}

main().catch((error) => { console.error(error); process.exit(1); });
