package grader

// hintsLesson01 are the levelled hints of lesson 01's checks: a question,
// a pointer into the Go standard library or the spec, a near-solution.
var hintsLesson01 = map[string]Hint{
	"STDIO-01": {
		"Does your server answer at all? Look at the report's wire and stderr lines: did a response with id 1 come back on stdout, or did the process exit, or print something else first?",
		"Lesson 01, step 1: read a line with bufio.Reader.ReadBytes('\\n'), decode it, call session.Handle(ctx, msg, c), and write the response it returns. The spec's rule is in basic/lifecycle › Initialization.",
		`In Serve, a first version (send writes json.Marshal(v) plus '\n' in one Write):

	r := bufio.NewReader(in)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			msg, reject := Decode(line)
			if reject != nil {
				c.send(reject)
			} else if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.send(resp)
			}
		}
		if err == io.EOF {
			return nil
		}
	}`,
	},
	"STDIO-02": {
		"Which version did the client ask for, and which one came back in the InitializeResult's protocolVersion? Does the initialize request reach the session with its params untouched?",
		"basic/lifecycle › Version Negotiation: a supported version is echoed, an unknown one is answered with one the server supports. internal/mcp does this for you from the Versions table (internal/mcp/versions.go).",
		"Pass the decoded message to session.Handle as it is: keep Params as the json.RawMessage the client sent (do not rebuild it), and write the response Handle returns. Answer initialize on the reading goroutine, before you read the next line.",
	},
	"STDIO-03": {
		"Does every response carry exactly the id its request had: the string \"7\" as a string, and 9007199254740993 digit for digit? And does ping answer {} rather than null?",
		"encoding/json turns a number into a float64 when it decodes into any or interface{}, and a float64 cannot hold every integer above 2^53. json.RawMessage (or the given jsonrpc.ID) keeps the id's exact text. The spec: basic/utilities/ping, and basic/index › Responses.",
		"Keep the id as raw JSON all the way: decode the \"id\" member into json.RawMessage and turn it into a jsonrpc.ID (whose UnmarshalJSON keeps its exact text), never into an int, a float64 or any:\n\n\tvar raw struct {\n\t\tID json.RawMessage `json:\"id\"`\n\t\t// …\n\t}\n\tvar id jsonrpc.ID\n\tif raw.ID != nil {\n\t\tif err := json.Unmarshal(raw.ID, &id); err != nil { /* -32600 */ }\n\t}\n\nLet session.Handle build the response, and write it as it is.",
	},
	"STDIO-04": {
		"What does your server do with a ping that arrives before initialize: does it answer, wait, or refuse it?",
		"basic/lifecycle › Initialization lets a client send pings before initialize, and basic/utilities/ping says the receiver MUST respond promptly. The session's Handle answers ping at any time.",
		"Do not gate the loop on initialize: hand every line to Decode and session.Handle in the order it arrives, and write each response. No 'initialized yet?' flag is needed in the transport.",
	},
	"STDIO-05": {
		"How many lines does one of your messages take on stdout? What happens to a newline inside a string value when you encode it?",
		"The stdio transport: messages are delimited by newlines and MUST NOT contain embedded newlines (basic/transports › stdio). json.Marshal and json.Encoder escape \\n inside strings; json.MarshalIndent and Encoder.SetIndent add raw newlines.",
		`Compact JSON and one newline, in one Write:

	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	_, err = out.Write(append(b, '\n'))
	return err

No MarshalIndent, no SetIndent, no second Write for the newline.`,
	},
	"STDIO-06": {
		"Is anything on stdout that is not a JSON-RPC message: a greeting, a debug print, a log line?",
		"basic/transports › stdio: the server MUST NOT write anything to stdout that is not a valid MCP message. In Go, log.Print writes to stderr; fmt.Println and os.Stdout.Write write to stdout.",
		`In cmd/server/main.go, replace

	fmt.Println("notes server: serving MCP on stdin/stdout")

with

	log.Print("serving MCP on stdin/stdout")

and drop the "fmt" import. Then search your code for fmt.Print and os.Stdout: every diagnostic goes to log (stderr).`,
	},
	"STDIO-07": {
		"What does your server write after a message that has a method but no id, including one for a method it does not know?",
		"basic/index › Notifications: the receiver MUST NOT send a response. session.Handle returns nil for a notification.",
		`Write only a non-nil response, and never an error reply of your own for a notification:

	if resp := c.session.Handle(ctx, msg, c); resp != nil {
		c.send(resp)
	}`,
	},
	"STDIO-08": {
		"When a request names a method the server does not have, what comes back on stdout, and with which id and code?",
		"JSON-RPC 2.0 §5.1: -32601 is Method not found. internal/mcp's Handle answers it; the transport only has to write error responses like any other response.",
		"Write whatever Handle returns, result or error, with the same send helper. Do not turn Handle's error responses into something else, and do not drop them.",
	},
	"STDIO-09": {
		"Is calling a tool that does not exist a failed tool run, or a bad request?",
		"server/tools › Error Handling: unknown tools are a protocol error, answered as a JSON-RPC error with -32602 (Invalid params), not as a result with isError.",
		"The given session already answers -32602 for an unknown tool: pass tools/call requests to session.Handle unchanged and write its response as it is.",
	},
	"STDIO-10": {
		"What does a client see when it sends a line that is not JSON: an error response, silence, or a server that stopped?",
		"JSON-RPC 2.0 §5.1: -32700 Parse error, for text that is not JSON; no id can be read, so the error has none. encoding/json's json.Valid tells you whether a line is JSON at all.",
		`In Decode, before anything else:

	if !json.Valid(line) {
		return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},
			jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: the message is not valid JSON"))
	}

In Serve, write that reject and go on to the next line: no return, no break.`,
	},
	"STDIO-11": {
		"Does your Decode look at the value of \"jsonrpc\", or only whether it is there? What about 2.0 written as a number?",
		"basic/index › Messages: all messages MUST follow JSON-RPC 2.0, which requires \"jsonrpc\": \"2.0\" exactly. Valid JSON with a wrong member is -32600 Invalid Request, not -32700.",
		"Decode the members as json.RawMessage, read the id first, then:\n\n\tif string(raw.JSONRPC) != `\"2.0\"` {\n\t\treturn nil, jsonrpc.NewErrorResponse(id,\n\t\t\tjsonrpc.NewError(jsonrpc.CodeInvalidRequest, `invalid request: \"jsonrpc\" must be exactly \"2.0\"`))\n\t}",
	},
	"STDIO-12": {
		"After decoding, can your code tell \"id\": null from a message with no id at all?",
		"basic/index › Requests: unlike base JSON-RPC, the ID MUST NOT be null. With json.RawMessage an absent member stays nil, while null becomes the four bytes null.",
		"\tvar raw struct {\n\t\tID     json.RawMessage `json:\"id\"`\n\t\tMethod json.RawMessage `json:\"method\"`\n\t\t// …\n\t}\n\tif err := json.Unmarshal(line, &raw); err != nil { /* -32600: not an object */ }\n\tif raw.Method != nil && string(raw.ID) == \"null\" {\n\t\treturn nil, jsonrpc.NewErrorResponse(jsonrpc.ID{},\n\t\t\tjsonrpc.NewError(jsonrpc.CodeInvalidRequest, \"invalid request: a request id must not be null\"))\n\t}",
	},
	"STDIO-13": {
		"Which error does your server give valid JSON of the wrong shape: \"method\": 42, \"params\": \"oops\", a bare 42, or {}?",
		"JSON-RPC 2.0 §5.1: -32700 only when the text is not JSON; -32600 when it is JSON but not a valid Request object. json.Unmarshal into a struct fails on a type mismatch too, so its error alone cannot tell the two apart.",
		`json.Valid first (-32700). Then every shape problem is -32600, with the id when you could read it:

	var raw struct {
		JSONRPC, ID, Method, Params, Result, Error json.RawMessage
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		// a bare 42, a string, an array: not an object
	}
	// "method", when present: a JSON string, not empty
	// "params", when present and not null: starts with { or [
	// no "method": exactly one of "result" and "error"`,
	},
	"STDIO-14": {
		"What happens to your read loop when one line is longer than 64 KiB?",
		"bufio.Scanner stops at a token longer than its buffer (bufio.MaxScanTokenSize, 64 KiB) and Err returns bufio.ErrTooLong; bufio.Reader.ReadBytes grows its result as needed. Scanner.Buffer raises the Scanner's limit.",
		`A bufio.Reader grows each line as needed:

	r := bufio.NewReaderSize(in, 64<<10)
	line, err := r.ReadBytes('\n') // 4 MiB is fine

If you keep a Scanner, raise its limit before the first Scan:

	sc.Buffer(make([]byte, 64<<10), MaxMessageBytes)`,
	},
	"STDIO-15": {
		"What does a line ending in \\r\\n look like to your decoder, and what do you answer to an empty line?",
		"The stdio transport frames messages by newlines only; bytes.TrimSpace removes \\r, spaces and tabs at both ends. A blank line holds no message, so it is owed no answer.",
		`Before Decode:

	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		continue // a blank line holds no message: no answer at all
	}`,
	},
	"STDIO-16": {
		"While a three-second tool call runs, is your loop still reading stdin, or is it waiting for the tool to finish?",
		"basic/utilities/cancellation: a cancellation can only stop a request the server still reads messages for. A goroutine per request, and a sync.WaitGroup to know when all are done.",
		`Requests on goroutines, notifications in order on the reader:

	switch {
	case msg.IsRequest():
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.send(resp)
			}
		}()
	default:
		c.session.Handle(ctx, msg, c)
	}`,
	},
	"STDIO-17": {
		"When the countdown tool sends progress, where does it go? Which Peer did you give session.Handle?",
		"basic/utilities/progress: progress notifications carry the request's progressToken, exactly as sent, and a progress value that increases. The session sends them through the mcp.Peer you pass to Handle, with Send(ctx, msg).",
		`Make conn an mcp.Peer, writing the same way as responses, and pass it to Handle:

	func (c *conn) Send(ctx context.Context, msg *jsonrpc.Message) error {
		return c.send(msg)
	}

	resp := c.session.Handle(ctx, msg, c)`,
	},
	"STDIO-18": {
		"When notifications/cancelled arrives, does your loop read it while the request still runs? And what do you write when Handle then returns nil?",
		"basic/utilities/cancellation › Behavior Requirements: stop processing the cancelled request and send no response for it. The session cancels the request's context when it handles the notification.",
		`Requests on goroutines; notifications straight to the session on the reading goroutine, so a cancellation lands while its request runs; and nothing written when Handle returns nil:

	go func() {
		defer c.wg.Done()
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.send(resp) // a cancelled request returns nil: nothing is sent
		}
	}()`,
	},
	"STDIO-19": {
		"Two goroutines finish at the same moment: can the bytes of their two responses end up mixed on one line?",
		"sync.Mutex, held around exactly one Write per message with its newline (basic/transports › stdio: no embedded newlines, so a line must be one whole message). Two Writes (message, then newline), or a shared bufio.Writer without the lock, let another goroutine's bytes slip in between.",
		`	type writer struct {
		mu  sync.Mutex
		out io.Writer
	}

	func (w *writer) send(v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		_, err = w.out.Write(append(b, '\n')) // one Write, newline included
		return err
	}`,
	},
	"STDIO-20": {
		"At protocol version 2025-03-26, what does your server do with a line that is a JSON array?",
		"MCP 2025-03-26, basic/index › Batching: servers MUST support receiving batches. JSON-RPC 2.0 §6: the answer is one array of the requests' responses, nothing for notifications, and one -32600 for an empty array. The version session.Version() returns has a Batches field that says whether it allows them.",
		`In ServeBatch (Serve passes the version from c.session.Version()):

	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil { /* -32700 */ }
	if !version.Batches || len(items) == 0 { /* one -32600 reject */ }
	for _, item := range items {
		msg, reject := Decode(item)
		// reject: collect it; initialize: -32600; notification: Handle, no answer;
		// request: Handle on a goroutine (WaitGroup, mutex around the slice)
	}

Serve writes the responses as one json.Marshal'ed array on one line, or nothing when there are none.`,
	},
	"STDIO-21": {
		"At 2025-11-25, which has no batches, what does a client get back for an array, and does your server still answer the next line?",
		"2025-06-18 removed batching (changelog, major change 1); at later versions a message is a single request, notification or response (basic/transports). An array is then an Invalid Request, -32600.",
		`In ServeBatch, before looking at the elements:

	if !version.Batches {
		return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeInvalidRequest,
			"invalid request: protocol version %s has no JSON-RPC batches", version.Name))
	}

Serve writes that reject as one error object, not an array, and goes on reading.`,
	},
	"STDIO-22": {
		"When stdin ends while a request is still running, does its response still get written, and does Serve return nil afterwards?",
		"basic/lifecycle › Shutdown › stdio: the client closes stdin first, then waits for the server to exit. io.EOF from ReadBytes says input has ended; sync.WaitGroup.Wait waits for the running requests.",
		`At end of input, wait for the running requests, but not forever:

	case err := <-readErr:
		done := make(chan struct{})
		go func() { c.wg.Wait(); close(done) }()
		select {
		case <-done:
			if err == io.EOF {
				return nil
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-c.failed:
			return c.err
		}`,
	},
	"STDIO-23": {
		"When the client stops reading, what does your write to stdout return, and what does your server do with that error?",
		"With SIGPIPE ignored (the given main does that), a write to a closed pipe returns an error (syscall.EPIPE) instead of killing the process. basic/lifecycle › Shutdown: a server that cannot talk to its client may end the session by exiting.",
		`In the writer, remember the first write error and say so once:

	if _, err := w.out.Write(b); err != nil {
		w.once.Do(func() { w.err = err; close(w.failed) })
		return err
	}

In Serve's select:

	case <-c.failed:
		cancel() // stop the running tools too
		return c.err`,
	},
	"STDIO-24": {
		"The given main cancels Serve's context on SIGTERM: does your loop ever look at ctx.Done() while it waits for input?",
		"os/signal.NotifyContext cancels a context on a signal; a goroutine blocked in ReadBytes cannot notice it, so read on a goroutine of its own and select on the lines channel and ctx.Done(). basic/lifecycle › Shutdown › stdio.",
		`Read on a goroutine of its own, so the loop can also watch ctx:

	go func() {
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		select {
		case line := <-lines:
			c.handle(ctx, line)
		case err := <-readErr:
			// step 6: end of input
		case <-ctx.Done():
			return ctx.Err() // SIGTERM; defer c.session.Close() stops the tools
		}
	}`,
	},
	"STDIO-25": {
		"When the client's last line has no newline and stdin closes right after it, does your loop serve that line, or does it see io.EOF and stop first?",
		"bufio.Reader.ReadBytes returns the bytes it read and io.EOF together when the input ends without the delimiter. Lesson 01, step 1: handle the data before you look at the error.",
		`	line, err := r.ReadBytes('\n')
	if len(bytes.TrimSpace(line)) > 0 {
		c.handle(ctx, line) // the last line may come with io.EOF
	}
	if err == io.EOF {
		return nil
	}`,
	},
	"STDIO-26": {
		"Does your loop answer initialize before it reads the next line, or can a batch sent right behind initialize be read while the version is still unknown?",
		"session.Version() is set when Handle answers initialize. basic/lifecycle › Initialization: clients SHOULD wait for the answer, but the lesson asks the server not to depend on it (step 4).",
		`In the reading loop, before the case that starts a goroutine per request:

	case msg.Method == "initialize":
		// answered here, so the next line sees the agreed version
		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}`,
	},
}
