// The peer contract (../contract/tools.json) served with the official MCP
// TypeScript SDK, @modelcontextprotocol/sdk 1.32.2, over stdio or Streamable
// HTTP, with the SDK's defaults (every response on an SSE stream).
//
//   node server.mjs                                  stdio
//   node server.mjs -http 127.0.0.1:0 [-stateless]   Streamable HTTP at /mcp
//   node server.mjs -http 127.0.0.1:0 -resumable     with the SDK's InMemoryEventStore
//
// It uses the SDK's low-level Server, so that tools/list shows the
// contract's JSON schemas exactly. Stateful mode keeps one Server and one
// transport per session, as the SDK's examples do; stateless mode makes both
// anew for every request, as the SDK's stateless example does.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
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
  const sessions = new Map(); // session id -> transport
  const http = createServer(async (req, res) => {
    if (new URL(req.url, "http://x").pathname !== "/mcp") return plain(res, 404, -32000, "not found");
    if (stateless) {
      const server = newServer();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on("close", () => { transport.close(); server.close(); });
      await server.connect(transport);
      return transport.handleRequest(req, res); // the SDK reads the body, with its own limits
    }
    const id = req.headers["mcp-session-id"];
    if (id) {
      const transport = sessions.get(id);
      if (!transport) return plain(res, 404, -32001, "Session not found");
      return transport.handleRequest(req, res);
    }
    // No session yet: only an initialize may start one, so the body must be
    // read here, as the SDK's examples read it (with express.json()) to ask
    // isInitializeRequest. Its size limit and its errors are the SDK's own.
    if (req.method !== "POST") return plain(res, 400, -32000, "Bad Request: No valid session ID provided");
    const body = await readBody(req, res);
    if (body === undefined) return; // answered already
    let message;
    try {
      message = JSON.parse(body);
    } catch {
      return plain(res, 400, -32700, "Parse error: Invalid JSON");
    }
    if (!isInitializeRequest(message)) return plain(res, 400, -32000, "Bad Request: No valid session ID provided");
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      eventStore: resumable ? new InMemoryEventStore() : undefined,
      onsessioninitialized: (sid) => sessions.set(sid, transport),
    });
    transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
    await newServer().connect(transport);
    return transport.handleRequest(req, res, message);
  });
  // Catch the signals before saying where the server listens: whoever
  // reads that line may stop the server at once.
  for (const sig of ["SIGTERM", "SIGINT"]) process.on(sig, () => process.exit(0));
  const [host, port] = splitHostPort(httpAddr);
  http.listen(port, host, () => {
    const a = http.address();
    console.error(`ts-server: listening on http://${a.address}:${a.port}/mcp`);
  });
}

// MAX_BODY is the SDK's DEFAULT_MAX_REQUEST_BODY_SIZE, which it applies when
// it reads a body itself.
const MAX_BODY = 4 * 1024 * 1024;

// readBody reads a request body up to MAX_BODY, as the SDK's readRequestBody
// does, and answers 413 as the SDK does when it is longer (returning
// undefined then).
function readBody(req, res) {
  return new Promise((resolve, reject) => {
    const tooLarge = () => {
      res.setHeader("Connection", "close");
      plain(res, 413, -32000, `Payload Too Large: Request body must not exceed ${MAX_BODY} bytes`);
      res.on("finish", () => req.destroy());
      resolve(undefined);
    };
    if (Number(req.headers["content-length"]) > MAX_BODY) return tooLarge();
    const chunks = [];
    let size = 0;
    req.on("data", (c) => {
      size += c.length;
      if (size > MAX_BODY) {
        req.pause();
        req.removeAllListeners("data");
        return tooLarge();
      }
      chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

// plain answers with a JSON-RPC error without an id, as the SDK's own
// createJsonErrorResponse does.
function plain(res, status, code, message) {
  res.writeHead(status, { "Content-Type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

function splitHostPort(addr) {
  const i = addr.lastIndexOf(":");
  return [addr.slice(0, i).replace(/^\[|\]$/g, ""), Number(addr.slice(i + 1))];
}
