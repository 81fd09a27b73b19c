package mcp

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"mcpcourse/internal/jsonrpc"
)

// Notebook is a list of notes, with the history of the tool calls made with
// it. A session of the 2025 era owns one, unnamed; at 2026-07-28 a client
// makes as many as it likes with new_notebook and names each by its handle.
// A nil *Notebook is a notebook nobody named: it remembers nothing.
type Notebook struct {
	owner string // "session" or "notebook": how its limits name it

	mu      sync.Mutex
	notes   []string
	history []string
}

// add stores a note and returns how many the notebook now holds.
func (n *Notebook) add(text string) (int, error) {
	if text == "" {
		return 0, fmt.Errorf(`argument "text" must not be empty`)
	}
	if len(text) > MaxNoteBytes {
		return 0, fmt.Errorf("a note holds at most %d bytes; this one has %d", MaxNoteBytes, len(text))
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.notes) >= MaxNotes {
		return 0, fmt.Errorf("this %s already holds %d notes, the most it may", n.owner, MaxNotes)
	}
	n.notes = append(n.notes, text)
	return len(n.notes), nil
}

func (n *Notebook) list() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.notes...)
}

// clear deletes every note and returns how many there were.
func (n *Notebook) clear() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	count := len(n.notes)
	n.notes = nil
	return count
}

// remember adds a finished tool call to the notebook's history.
func (n *Notebook) remember(tool string, id jsonrpc.ID, outcome string) {
	if n == nil || tool == "history" {
		return // nobody to tell; and asking what happened is not itself news
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.history = append(n.history, fmt.Sprintf("%s (id %s): %s", tool, id, outcome))
	if len(n.history) > MaxHistory {
		n.history = n.history[1:]
	}
}

func (n *Notebook) calls() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.history...)
}

// Limits on the notebooks of the stateless era, so that clients nobody
// knows cannot grow the server's memory without bound. A notebook outlives
// every connection, so it lives until it has gone unused this long ("the
// server's retention policy should be stated in the creation tool's
// description", server/tools, "Stateful Tools").
const (
	MaxNotebooks = 1000
	NotebookIdle = time.Hour
)

// handlePrefix begins every notebook handle: "nb_" and 26 characters of
// base32, 128 random bits. A handle is the only thing that stands between a
// client and a notebook ("For unauthenticated servers, where the handle is
// necessarily a bearer token, it should be generated with sufficient
// entropy", server/tools, "Stateful Tools"), so it is never listed, logged
// or put in a header.
const handlePrefix = "nb_"

// notebookScheme is the scheme of a notebook's resource URI, notes://nb_….
const notebookScheme = "notes://"

var handleEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// newHandle returns a fresh notebook handle.
func newHandle() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("crypto/rand failed: " + err.Error()) // cannot happen on supported systems
	}
	return handlePrefix + strings.ToLower(handleEncoding.EncodeToString(b[:]))
}

// notebookStore holds the notebooks of the stateless era, by handle. It
// has no goroutine of its own: idle notebooks are dropped when they are
// looked up, and all of them when the store is full.
type notebookStore struct {
	now func() time.Time

	mu       sync.Mutex
	byHandle map[string]*storedNotebook
}

type storedNotebook struct {
	*Notebook
	lastUsed time.Time // guarded by the store's mu
}

func newNotebookStore(now func() time.Time) *notebookStore {
	return &notebookStore{now: now, byHandle: map[string]*storedNotebook{}}
}

// create makes an empty notebook, unless the store already holds
// MaxNotebooks that are still in use.
func (st *notebookStore) create() (string, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	now := st.now()
	if len(st.byHandle) >= MaxNotebooks {
		for h, nb := range st.byHandle {
			if now.Sub(nb.lastUsed) > NotebookIdle {
				delete(st.byHandle, h)
			}
		}
		if len(st.byHandle) >= MaxNotebooks {
			return "", fmt.Errorf("the server already holds %d notebooks, the most it may; try again when one has gone unused for %d minutes", MaxNotebooks, int(NotebookIdle.Minutes()))
		}
	}
	h := newHandle()
	st.byHandle[h] = &storedNotebook{Notebook: &Notebook{owner: "notebook"}, lastUsed: now}
	return h, nil
}

// get returns the notebook with handle and marks it used, or nil when there
// is none: never made, or dropped after NotebookIdle without use.
func (st *notebookStore) get(handle string) *Notebook {
	st.mu.Lock()
	defer st.mu.Unlock()
	nb := st.byHandle[handle]
	now := st.now()
	switch {
	case nb == nil:
		return nil
	case now.Sub(nb.lastUsed) > NotebookIdle:
		delete(st.byHandle, handle)
		return nil
	}
	nb.lastUsed = now
	return nb.Notebook
}

// named returns the notebook a tool call's arguments name in "notebook", or
// nil. st may be nil: a server without notebooks.
func (st *notebookStore) named(args json.RawMessage) *Notebook {
	if st == nil {
		return nil
	}
	var a struct {
		Notebook string `json:"notebook"`
	}
	json.Unmarshal(args, &a)
	if a.Notebook == "" {
		return nil
	}
	return st.get(a.Notebook)
}

// notebookArg reads the "notebook" argument of a tool call and finds the
// notebook. An unknown or expired handle is a tool execution error that
// says so, "so the model can recover by creating a new one" (server/tools,
// "Stateful Tools").
func notebookArg(req *Request, args json.RawMessage) (string, *Notebook, error) {
	var a struct {
		Notebook *string `json:"notebook"`
	}
	if err := decodeArgs(args, &a); err != nil {
		return "", nil, err
	}
	if a.Notebook == nil {
		return "", nil, fmt.Errorf(`missing required argument "notebook": make one with new_notebook`)
	}
	nb := req.server.notebooks.get(*a.Notebook)
	if nb == nil {
		return "", nil, fmt.Errorf("no notebook %q: it never existed, or went unused for %d minutes and was deleted; make one with new_notebook", *a.Notebook, int(NotebookIdle.Minutes()))
	}
	return *a.Notebook, nb, nil
}

// optionalNotebook finds the notebook a call names, if it names one: nil and
// no error when it names none.
func optionalNotebook(req *Request, args json.RawMessage) (*Notebook, error) {
	var a struct {
		Notebook *string `json:"notebook"`
	}
	if decodeArgs(args, &a) != nil || a.Notebook == nil {
		return nil, nil // countdown reports bad arguments itself
	}
	_, nb, err := notebookArg(req, args)
	return nb, err
}

// notebookSchema is the "notebook" argument of the tools that take one.
const notebookSchema = `"notebook":{"type":"string","pattern":"^nb_[a-z2-7]{26}$","description":"A notebook's handle, as new_notebook returned it."}`

// statelessNotesTools are the notes server's tools at 2026-07-28. The
// session era's add_note, list_notes and history work on the session's own
// notebook; here there is no session, so they take the notebook's handle as
// an argument, and new_notebook makes one.
func statelessNotesTools() []*Tool {
	return []*Tool{
		echoTool(),
		{
			Name:  "new_notebook",
			Title: "New notebook",
			Description: fmt.Sprintf("Makes an empty notebook and returns its handle (nb_…). Pass the handle as the notebook argument "+
				"of add_note, list_notes, clear_notes and history, and of countdown to keep its outcome. A notebook is deleted "+
				"after %d minutes without use; the server keeps at most %d. Anyone who has the handle can use the notebook.", int(NotebookIdle.Minutes()), MaxNotebooks),
			InputSchema:  json.RawMessage(`{"type":"object","properties":{}}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"notebook":{"type":"string"}},"required":["notebook"]}`),
			Run: func(_ context.Context, req *Request, _ json.RawMessage) (*ToolResult, error) {
				h, err := req.server.notebooks.create()
				if err != nil {
					return nil, err
				}
				r := Text(fmt.Sprintf("Made notebook %s. Pass it as the notebook argument of the notes tools.", h))
				r.StructuredContent = map[string]string{"notebook": h}
				return r, nil
			},
		},
		{
			Name:  "add_note",
			Title: "Add a note",
			Description: fmt.Sprintf("Saves a note in a notebook (at most %d notes of %d bytes each). It logs the note "+
				"(notifications/message, logger \"notes\") when the request sets a log level, and tells the listeners subscribed "+
				"to the notebook's resource, notes://<handle>, with notifications/resources/updated.", MaxNotes, MaxNoteBytes),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + notebookSchema +
				`,"text":{"type":"string","description":"The note to save."}},"required":["notebook","text"]}`),
			Run: textTool(func(ctx context.Context, req *Request, args json.RawMessage) (string, error) {
				h, nb, err := notebookArg(req, args)
				if err != nil {
					return "", err
				}
				var a struct {
					Text string `json:"text"`
				}
				if err := decodeArgs(args, &a); err != nil {
					return "", err
				}
				n, err := nb.add(a.Text)
				if err != nil {
					return "", err
				}
				req.Log(ctx, LevelInfo, "notes", map[string]any{"note": n, "text": a.Text})
				req.server.Publish(Change{Kind: ResourceUpdated, URI: notebookScheme + h})
				return fmt.Sprintf("Saved note %d.", n), nil
			}),
		},
		{
			Name:        "list_notes",
			Title:       "List notes",
			Description: "Lists the notes of a notebook, one per line. The resource notes://<handle> holds the same text.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + notebookSchema + `},"required":["notebook"]}`),
			Run: textTool(func(_ context.Context, req *Request, args json.RawMessage) (string, error) {
				_, nb, err := notebookArg(req, args)
				if err != nil {
					return "", err
				}
				return numbered(nb.list(), "No notes yet."), nil
			}),
		},
		{
			Name:  "clear_notes",
			Title: "Clear notes",
			Description: "Deletes every note of a notebook, once the user has confirmed it. It asks through a multi round-trip " +
				"request (an elicitation/create in an InputRequiredResult), so the request must declare the elicitation " +
				"capability; the client then retries the call with the user's answer.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + notebookSchema + `},"required":["notebook"]}`),
			Run:         textTool(clearNotes),
		},
		{
			Name:  "countdown",
			Title: "Countdown",
			Description: "Counts down from `from`, waiting interval_ms between steps. Sends notifications/progress for each step " +
				"when the request carries a progress token. Stops when cancelled: over HTTP, closing the response stream cancels it. " +
				"Given a notebook, it leaves its outcome in the notebook's history.",
			InputSchema: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
				`"from":{"type":"integer","minimum":0,"maximum":%d,"x-mcp-header":"Countdown-From","description":"How many steps to count. Mirrored in the Mcp-Param-Countdown-From header over HTTP."},`+
				`"interval_ms":{"type":"integer","minimum":0,"maximum":%d,"default":1000,"description":"Milliseconds between steps."},`+
				notebookSchema+`},"required":["from"]}`, MaxCountdownSteps, MaxCountdownInterval.Milliseconds())),
			Run: textTool(func(ctx context.Context, req *Request, args json.RawMessage) (string, error) {
				if _, err := optionalNotebook(req, args); err != nil {
					return "", err // a handle that names nothing would leave no history
				}
				return countdown(ctx, req, args)
			}),
		},
		{
			Name:  "history",
			Title: "History",
			Description: fmt.Sprintf("Lists the last %d tool calls made with a notebook, oldest first, and how each ended: "+
				"finished, failed or cancelled. It shows whether a call stopped when its client went away.", MaxHistory),
			InputSchema: json.RawMessage(`{"type":"object","properties":{` + notebookSchema + `},"required":["notebook"]}`),
			Run: textTool(func(_ context.Context, req *Request, args json.RawMessage) (string, error) {
				_, nb, err := notebookArg(req, args)
				if err != nil {
					return "", err
				}
				return numbered(nb.calls(), "No tool calls yet."), nil
			}),
		},
	}
}

// clearNotes is the clear_notes tool: the course's multi round-trip request.
// The first call asks the user to confirm, with the number of notes it will
// delete in the question and in its state; the retry deletes them only if
// the user accepted and the notebook still holds that many. The state says
// what the user agreed to, so it is protected: the server seals it, and a
// requestState made for another notebook, another tool or by hand is refused
// before this code runs.
func clearNotes(_ context.Context, req *Request, args json.RawMessage) (string, error) {
	h, nb, err := notebookArg(req, args)
	if err != nil {
		return "", err
	}
	count := len(nb.list())
	if count == 0 {
		return fmt.Sprintf("Notebook %s has no notes.", h), nil
	}
	var asked struct {
		Notes int `json:"notes"`
	}
	answer, answered := req.InputResponse("confirm")
	if !req.State(&asked) || !answered || asked.Notes != count {
		// A first call, a retry without the answer, or a notebook that
		// changed since the question: ask (again), for the count as it is.
		return "", &InputRequired{
			Requests: map[string]InputRequest{"confirm": {Method: "elicitation/create", Params: map[string]any{
				"mode":    "form",
				"message": fmt.Sprintf("Delete %s of notebook %s? This cannot be undone.", notes(count), h),
				"requestedSchema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"confirm": map[string]any{"type": "boolean", "title": "Delete the notes", "default": false},
					},
					"required": []string{"confirm"},
				},
			}}},
			State: map[string]int{"notes": count},
		}
	}
	var result struct {
		Action  string `json:"action"`
		Content struct {
			Confirm bool `json:"confirm"`
		} `json:"content"`
	}
	if json.Unmarshal(answer, &result) != nil {
		return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, `inputResponses.confirm must be an elicitation result: {"action":"accept","content":{"confirm":true}}`)
	}
	switch result.Action {
	case "accept", "decline", "cancel":
	default:
		return "", jsonrpc.NewError(jsonrpc.CodeInvalidParams, `inputResponses.confirm.action must be "accept", "decline" or "cancel", not %q`, result.Action)
	}
	if result.Action != "accept" || !result.Content.Confirm {
		return fmt.Sprintf("Kept %s.", notes(count)), nil
	}
	deleted := nb.clear()
	req.server.Publish(Change{Kind: ResourceUpdated, URI: notebookScheme + h})
	return fmt.Sprintf("Deleted %s.", notes(deleted)), nil
}

// notes says how many notes: "1 note", "3 notes".
func notes(n int) string {
	if n == 1 {
		return "1 note"
	}
	return fmt.Sprintf("%d notes", n)
}

// The notes as resources, at 2026-07-28: a notebook's notes are the
// resource notes://<handle>, which resources/read returns and
// subscriptions/listen watches. resources/list lists none of them, since a
// handle is a secret; the template tells a client how to name one.

func (s *Server) listNotebookResources(context.Context, *Request) (any, *jsonrpc.Error) {
	return cachedResult{map[string]any{"resources": []any{}}, publicHint}, nil
}

func (s *Server) listNotebookTemplates(context.Context, *Request) (any, *jsonrpc.Error) {
	return cachedResult{map[string]any{"resourceTemplates": []any{map[string]any{
		"uriTemplate": notebookScheme + "{notebook}",
		"name":        "notebook",
		"title":       "A notebook's notes",
		"description": "The notes of the notebook with this handle, one per line, as list_notes returns them. Subscribe to it with subscriptions/listen to hear of each change.",
		"mimeType":    "text/plain",
	}}}, publicHint}, nil
}

// readNotebook answers resources/read of notes://<handle>. A resource that
// does not exist is -32602, never an empty contents array (server/resources,
// "Error Handling").
func (s *Server) readNotebook(_ context.Context, req *Request) (any, *jsonrpc.Error) {
	var p struct {
		URI string `json:"uri"`
	}
	json.Unmarshal(req.Params, &p)
	var nb *Notebook
	if h, ok := strings.CutPrefix(p.URI, notebookScheme); ok {
		nb = s.notebooks.get(h)
	}
	if nb == nil {
		err := jsonrpc.NewError(jsonrpc.CodeInvalidParams, "resource not found: %q", p.URI)
		err.Data, _ = json.Marshal(map[string]string{"uri": p.URI})
		return nil, err
	}
	// Notes change at any moment, and they are the client's own: stale at
	// once, and never to be shared with another caller.
	return cachedResult{map[string]any{"contents": []any{map[string]string{
		"uri": p.URI, "mimeType": "text/plain", "text": numbered(nb.list(), "No notes yet."),
	}}}, cacheHint{TTLMs: 0, Scope: "private"}}, nil
}
