// drive.mjs drives one MCP server with the official TypeScript SDK client
// (@modelcontextprotocol/sdk, pinned in package.json), and prints what
// happened as one JSON report on stdout. It judges nothing: the Go tests in
// interop/tsclient_test.go start it, read the report and check it.
//
//	node drive.mjs '{"transport":"stdio","command":"/path/to/server","scenario":"session"}'
//	node drive.mjs '{"transport":"http","url":"http://127.0.0.1:8080/mcp","scenario":"session"}'
//	node drive.mjs '{"transport":"websocket","url":"ws://127.0.0.1:8080/ws","scenario":"session"}'
//
// "origin" (HTTP and WebSocket) sends that Origin header, as a web page
// would: on HTTP through the transport's requestInit headers, on a
// WebSocket through Node's WebSocket, which takes headers as an option of
// its own (the SDK's WebSocketClientTransport uses the global WebSocket,
// Node.js 22 and newer).
//
// Scenarios:
//   session     initialize, ping, tools/list, echo, countdown with progress,
//               then close: DELETE the session (HTTP) and close the client.
//   resume      countdown with progress only, for a test whose proxy cuts the
//               POST stream mid-countdown: the SDK resumes it on its own.
//   tool-error  a tools/call answered with a JSON-RPC error on an SSE stream,
//               then watchMs of watching what the SDK does next.
//   refused     connect, which the server is expected to refuse; the step
//               records how it failed.
//
// The report records every message at the transport (what reached the
// client, before the SDK's protocol layer), every HTTP request the transport
// made, and the outcome of each step, so that a test can tell a server's
// mistake from a client's quirk.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';

const config = JSON.parse(process.argv[2] ?? '{}');
const requestTimeout = config.requestTimeoutMs ?? 10000;
const started = performance.now();
const since = () => Math.round(performance.now() - started);

const report = {
  scenario: config.scenario,
  steps: [], // {name, ok, ms, value?, error?}
  wire: [], // {seq, t, dir: "in"|"out", message}
  http: [], // {seq, t, method, rpc, sessionId, lastEventId, protocolVersion, origin, status, contentType, allowOrigin, error}
  transportErrors: [], // what the transport reported through onerror
  progressCallback: [], // progress values the SDK handed to onprogress
  close: null
};
let seq = 0;

// The whole run has a deadline of its own, below the Go test's, so that a
// hang still produces a report saying where it stopped.
const deadline = setTimeout(() => {
  report.steps.push({ name: 'deadline', ok: false, ms: since(), error: `the run did not end within ${config.deadlineMs} ms` });
  finish(3);
}, config.deadlineMs ?? 30000);

function finish(code) {
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify(report) + '\n', () => process.exit(code));
}

// step runs one step and records its outcome; a failed step ends the run,
// since later steps would only fail for the same reason.
async function step(name, fn) {
  const t0 = performance.now();
  try {
    const value = await fn();
    report.steps.push({ name, ok: true, ms: Math.round(performance.now() - t0), value });
    return value;
  } catch (error) {
    report.steps.push({ name, ok: false, ms: Math.round(performance.now() - t0), error: String(error?.message ?? error) });
    throw error;
  }
}

// loggingFetch records each HTTP request the transport makes and the status
// that came back. It never reads a body: SSE bodies belong to the SDK.
function loggingFetch(url, init = {}) {
  const headers = new Headers(init.headers);
  const entry = {
    seq: seq++,
    t: since(),
    method: init.method ?? 'GET',
    sessionId: headers.get('mcp-session-id') ?? '',
    lastEventId: headers.get('last-event-id') ?? '',
    protocolVersion: headers.get('mcp-protocol-version') ?? '',
    origin: headers.get('origin') ?? ''
  };
  if (typeof init.body === 'string') {
    try {
      const body = JSON.parse(init.body);
      entry.rpc = body.method ?? (body.result !== undefined || body.error !== undefined ? 'response' : '');
    } catch {
      // not JSON: leave rpc empty
    }
  }
  report.http.push(entry);
  return fetch(url, init).then(
    (response) => {
      entry.status = response.status;
      entry.contentType = response.headers.get('content-type') ?? '';
      // The server's CORS grant: it echoes an Origin it allows, which
      // shows that the header reached it.
      entry.allowOrigin = response.headers.get('access-control-allow-origin') ?? '';
      return response;
    },
    (error) => {
      entry.error = String(error?.message ?? error);
      throw error;
    }
  );
}

function newTransport() {
  switch (config.transport) {
    case 'stdio':
      return new StdioClientTransport({ command: config.command, args: config.args ?? [], stderr: 'inherit' });
    case 'websocket':
      return newWebSocketTransport();
    default: {
      const requestInit = config.origin ? { headers: { Origin: config.origin } } : undefined;
      return new StreamableHTTPClientTransport(new URL(config.url), { fetch: loggingFetch, requestInit });
    }
  }
}

// newWebSocketTransport returns the SDK's WebSocketClientTransport, which
// opens new WebSocket(url, "mcp") on the global WebSocket. A browser sends
// its page's Origin on that handshake; to do the same, the global is
// replaced by a subclass that passes the header in Node's own option.
function newWebSocketTransport() {
  if (typeof WebSocket === 'undefined') {
    throw new Error(`Node.js ${process.version} has no global WebSocket, which the SDK's WebSocketClientTransport needs: run this on Node.js 22 or newer`);
  }
  if (config.origin) {
    const NodeWebSocket = globalThis.WebSocket;
    globalThis.WebSocket = class extends NodeWebSocket {
      constructor(url, protocols) {
        super(url, { protocols, headers: { Origin: config.origin } });
      }
    };
  }
  return new WebSocketClientTransport(new URL(config.url));
}

// watch records the transport's traffic. Client.connect keeps a handler set
// before it and calls it first for every message, so the record is what
// reached the transport, whatever the protocol layer does with it next.
function watch(transport) {
  transport.onmessage = (message) => report.wire.push({ seq: seq++, t: since(), dir: 'in', message });
  transport.onerror = (error) => report.transportErrors.push({ t: since(), error: String(error?.message ?? error) });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    report.wire.push({ seq: seq++, t: since(), dir: 'out', message });
    return send(message, options);
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function countdown(client, from, intervalMs) {
  const result = await client.callTool(
    { name: 'countdown', arguments: { from, interval_ms: intervalMs } },
    CallToolResultSchema,
    {
      timeout: requestTimeout,
      onprogress: (p) => report.progressCallback.push(p.progress)
    }
  );
  return result.content?.[0]?.text;
}

async function closeClient(client, transport) {
  const t0 = performance.now();
  const close = { deleteSent: false };
  // The stdio transport's child process, to learn how it ended. The SDK
  // keeps it in a private field; reading it is the only way to know.
  const child = transport._process;
  const exited = child
    ? new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) {
          resolve({ code: child.exitCode, signal: child.signalCode }); // it ended already
        } else {
          child.once('exit', (code, signal) => resolve({ code, signal }));
        }
      })
    : null;
  if (transport.sessionId !== undefined) {
    // Client.close only closes the transport; ending the session on the
    // server is the application's call (basic/transports: clients SHOULD
    // send DELETE when they no longer need the session).
    close.deleteSent = true;
    await transport.terminateSession();
  }
  await client.close();
  close.ms = Math.round(performance.now() - t0);
  if (exited) {
    // StdioClientTransport.close ends stdin, waits up to 2 s for the
    // server to exit, then sends SIGTERM: a server that exits on end of
    // input shows as code 0, no signal, well within 2 s.
    const how = await exited;
    close.exitCode = how.code;
    close.signal = how.signal;
  }
  report.close = close;
}

async function main() {
  const client = new Client({ name: 'mcpcourse-interop-ts', version: '1.0.0' }, { capabilities: {} });
  const transport = newTransport();
  watch(transport);

  if (config.scenario === 'refused') {
    await step('connect refused', async () => {
      try {
        await client.connect(transport, { timeout: requestTimeout });
      } catch (error) {
        return { refused: true, code: error?.code, message: String(error?.message ?? error) };
      }
      return { refused: false };
    });
    await step('close', () => client.close());
    return;
  }

  await step('connect', async () => {
    await client.connect(transport, { timeout: requestTimeout });
    return { server: client.getServerVersion(), sessionId: transport.sessionId ?? '' };
  });

  switch (config.scenario) {
    case 'session': {
      await step('ping', () => client.ping({ timeout: requestTimeout }));
      await step('tools/list', async () => {
        const { tools } = await client.listTools(undefined, { timeout: requestTimeout });
        return tools.map((t) => t.name);
      });
      await step('echo', async () => {
        const result = await client.callTool({ name: 'echo', arguments: { text: config.echo } }, CallToolResultSchema, {
          timeout: requestTimeout
        });
        return result.content?.[0]?.text;
      });
      await step('countdown', () => countdown(client, config.countdown.from, config.countdown.intervalMs));
      break;
    }
    case 'resume': {
      await step('countdown', () => countdown(client, config.countdown.from, config.countdown.intervalMs));
      break;
    }
    case 'tool-error': {
      // An unknown tool is a protocol error (-32602). The progress token
      // makes the server answer on an SSE stream, where 1.32.2 takes only
      // a result, not an error, as the end of the request's stream.
      await step('unknown tool', async () => {
        try {
          await client.callTool({ name: 'no_such_tool', arguments: {} }, CallToolResultSchema, {
            timeout: requestTimeout,
            onprogress: () => {}
          });
        } catch (error) {
          return { rejected: true, code: error?.code, message: String(error?.message ?? error) };
        }
        return { rejected: false };
      });
      await step('watch', () => sleep(config.watchMs ?? 0));
      break;
    }
    default:
      throw new Error(`unknown scenario ${JSON.stringify(config.scenario)}`);
  }
  await step('close', () => closeClient(client, transport));
}

main().then(
  () => finish(0),
  (error) => {
    // A failed step is in the report already; anything else failed before
    // the first step (a transport this Node.js cannot make).
    if (report.steps.every((s) => s.ok)) {
      report.steps.push({ name: 'setup', ok: false, ms: since(), error: String(error?.message ?? error) });
    }
    finish(1);
  }
);
