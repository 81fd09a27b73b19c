// The peer contract (../contract/tools.json) served with the official MCP
// TypeScript SDK, @modelcontextprotocol/sdk 1.32.2, over stdio or Streamable
// HTTP, with the SDK's defaults (every response on an SSE stream), served
// over HTTP as the SDK's examples serve it (createMcpExpressApp).
//
//   node server.mjs                                  stdio
//   node server.mjs -http 127.0.0.1:0 [-stateless]   Streamable HTTP at /mcp
//   node server.mjs -http 127.0.0.1:0 -resumable     with the SDK's InMemoryEventStore
//
// It uses the SDK's low-level Server, so that tools/list shows the
// contract's JSON schemas exactly. Stateful mode keeps one Server and one
// transport per session, as the SDK's examples do; stateless mode makes both
// anew for every request, as the SDK's stateless example does. The event
// store, which the stateful example always has, is only there with
// -resumable, so that the table shows the SDK with and without one.
import { readFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { InMemoryEventStore } from "@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";

const tools = JSON.parse(readFileSync(new URL("../contract/tools.json", import.meta.url), "utf8"));
const MAX_NOTES = 100, MAX_NOTE_BYTES = 4096, MAX_STEPS = 1000, MAX_INTERVAL_MS = 10000;

// newServer returns a Server holding one session's notes.
function newServer() {
  const notes = [];
  const server = new Server({ name: "ts-peer", version: "1.32.2" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    // An unknown tool is a protocol error (-32602), not a tool's failed run
    // (server/tools, Error Handling), as in the other peers' SDKs.
    if (!tools.some((t) => t.name === request.params.name)) {
      throw new McpError(ErrorCode.InvalidParams, `unknown tool: "${request.params.name}"`);
    }
    const args = request.params.arguments ?? {};
    try {
      return text(await call(request.params.name, args, request.params._meta?.progressToken, extra));
    } catch (err) {
      if (extra.signal.aborted) throw err;
      return { content: [{ type: "text", text: err.message }], isError: true };
    }
  });

  async function call(name, args, token, extra) {
    switch (name) {
      case "echo":
        if (typeof args.text !== "string") throw new Error('missing required argument "text"');
        return args.text;
      case "add_note": {
        const t = args.text;
        if (typeof t !== "string" || t === "") throw new Error('argument "text" must not be empty');
        const size = Buffer.byteLength(t);
        if (size > MAX_NOTE_BYTES) throw new Error(`a note holds at most ${MAX_NOTE_BYTES} bytes; this one has ${size}`);
        if (notes.length >= MAX_NOTES) throw new Error(`this session already holds ${MAX_NOTES} notes, the most it may`);
        notes.push(t);
        return `Saved note ${notes.length}.`;
      }
      case "list_notes":
        return notes.length === 0 ? "No notes yet." : notes.map((n, i) => `${i + 1}. ${n}`).join("\n");
      case "countdown":
        return countdown(args, token, extra);
    }
  }
  return server;
}

async function countdown(args, token, extra) {
  const from = args.from;
  if (!Number.isInteger(from) || from < 0 || from > MAX_STEPS) throw new Error(`argument "from" must be an integer from 0 to ${MAX_STEPS}`);
  const interval = args.interval_ms ?? 1000;
  if (!Number.isInteger(interval) || interval < 0 || interval > MAX_INTERVAL_MS) throw new Error(`argument "interval_ms" must be from 0 to ${MAX_INTERVAL_MS}`);
  for (let step = 1; step <= from; step++) {
    await sleep(interval, extra.signal);
    if (token !== undefined) {
      await extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress: step, total: from, message: `${from - step}...` },
      });
    }
  }
  return `Liftoff! Counted down from ${from}.`;
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("cancelled"));
    if (ms === 0) return setImmediate(resolve); // as Go's zero timer: at once, after pending I/O
    const timer = setTimeout(() => { signal.removeEventListener("abort", onAbort); resolve(); }, ms);
    const onAbort = () => { clearTimeout(timer); reject(new Error("cancelled")); };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

const text = (t) => ({ content: [{ type: "text", text: t }] });

// The command line: -http ADDR, -stateless.
const argv = process.argv.slice(2);
const httpAddr = argv.includes("-http") ? argv[argv.indexOf("-http") + 1] : "";
const stateless = argv.includes("-stateless");
const resumable = argv.includes("-resumable"); // the SDK's in-memory event store, from its examples

if (!httpAddr) {
  await newServer().connect(new StdioServerTransport());
} else {
  // As the SDK's examples serve Streamable HTTP (examples/server/
  // simpleStreamableHttp.js and simpleStatelessStreamableHttp.js): the
  // SDK's createMcpExpressApp, which refuses a Host other than localhost,
  // 127.0.0.1 or [::1] with 403 when it listens on loopback, and parses
  // JSON bodies with express.json() (100 KiB at most); then the examples'
  // routes, word for word in what they answer. The examples' extras are
  // left out: logging, a cap on sessions, OAuth.
  // (Imported here, so that a server on stdio does not wait for express to load.)
  const { createMcpExpressApp } = await import("@modelcontextprotocol/sdk/server/express.js");
  const [host, port] = splitHostPort(httpAddr);
  const app = createMcpExpressApp({ host });
  if (stateless) {
    app.post("/mcp", async (req, res) => {
      const server = newServer();
      try {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        await server.connect(transport);
        await transport.handleRequest(req, res, req.body);
        res.on("close", () => { transport.close(); server.close(); });
      } catch {
        if (!res.headersSent) res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
      }
    });
    const notAllowed = (req, res) => {
      res.writeHead(405).end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed." }, id: null }));
    };
    app.get("/mcp", notAllowed);
    app.delete("/mcp", notAllowed);
  } else {
    const transports = new Map(); // session id -> transport
    app.post("/mcp", async (req, res) => {
      const id = req.headers["mcp-session-id"];
      try {
        let transport = id ? transports.get(id) : undefined;
        if (!transport && !id && isInitializeRequest(req.body)) {
          transport = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            eventStore: resumable ? new InMemoryEventStore() : undefined,
            onsessioninitialized: (sid) => transports.set(sid, transport),
          });
          transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
          await newServer().connect(transport);
        } else if (!transport && id) {
          return res.status(404).json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
        } else if (!transport) {
          return res.status(400).json({ jsonrpc: "2.0", error: { code: -32000, message: "Bad Request: No valid session ID provided" }, id: null });
        }
        await transport.handleRequest(req, res, req.body);
      } catch {
        if (!res.headersSent) res.status(500).json({ jsonrpc: "2.0", error: { code: -32603, message: "Internal server error" }, id: null });
      }
    });
    // GET (the standalone stream, or a resumption) and DELETE go to the
    // session's transport.
    const inSession = async (req, res) => {
      const id = req.headers["mcp-session-id"];
      if (!id) return res.status(400).send("Missing session ID");
      const transport = transports.get(id);
      if (!transport) return res.status(404).json({ jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null });
      await transport.handleRequest(req, res);
    };
    app.get("/mcp", inSession);
    app.delete("/mcp", inSession);
  }
  // Catch the signals before saying where the server listens: whoever
  // reads that line may stop the server at once.
  for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
  const listener = app.listen(port, host, (err) => {
    if (err) {
      console.error(`ts-server: ${err.message}`);
      process.exit(1);
    }
    const a = listener.address();
    console.error(`ts-server: listening on http://${a.address}:${a.port}/mcp`);
  });
}

function splitHostPort(addr) {
  const i = addr.lastIndexOf(":");
  return [addr.slice(0, i).replace(/^\[|\]$/g, ""), Number(addr.slice(i + 1))];
}
