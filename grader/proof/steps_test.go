package proof

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"mcpcourse/grader"
	"mcpcourse/grader/internal/build"
	"mcpcourse/grader/internal/check"
	"mcpcourse/grader/variants"
)

// A lesson promises, step by step, which checks each step turns green. The
// proof holds it to that: it rebuilds the learner's code as it stands after
// each step, as the reference with the later steps' work undone, and grades
// it. After step N, every check of steps 1 to N must pass, and every check
// of a later step must fail, unless the lesson says it goes green early.

// undo is the work of one step, taken back out of the reference: applied
// to the reference, the undos of steps N+1 to the last give the code as it
// stands after step N.
type undo struct {
	step  int // the step whose work this removes
	edits []variants.Edit
}

// stepPromise is what the lesson text says about the code after one step.
type stepPromise struct {
	step  int
	early []string // checks of later steps that pass already, as the lesson says
}

type lessonSteps struct {
	lesson   string
	undos    []undo // from the last step backwards
	promises []stepPromise
}

var (
	stdioServe   = "solutions/01-stdio/serve.go"
	stdioDecode  = "solutions/01-stdio/decode.go"
	httpPost     = "solutions/02-streamable-http/post.go"
	httpHandler  = "solutions/02-streamable-http/handler.go"
	httpSessions = "solutions/02-streamable-http/sessions.go"
)

var lessonStepStates = []lessonSteps{
	{
		lesson: "01",
		undos: []undo{
			{step: 6, edits: []variants.Edit{{File: stdioServe,
				// Before step 6, Serve is a plain loop: no select on the
				// context or on a failed write, no waiting at end of input.
				Old: `	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	c := &conn{session: srv.NewSession(), out: newLineWriter(out), slots: make(chan struct{}, MaxInFlight),
		work: make(chan func()), quit: make(chan struct{})}
	c.session.Attach(c) // what the server says on its own (log messages) goes to stdout too
	defer c.session.Close()
	defer close(c.quit) // the idle workers leave

	lines := make(chan line)`,
				New: `	c := &conn{session: srv.NewSession(), out: newLineWriter(out), slots: make(chan struct{}, MaxInFlight),
		work: make(chan func()), quit: make(chan struct{})}
	c.session.Attach(c)
	defer close(c.quit)
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		l, err := readLine(r)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		c.handleLine(ctx, l)
	}
	cancel := func() {}
	lines := make(chan line)`,
			}}},
			{step: 5, edits: []variants.Edit{{File: stdioServe,
				// Before step 5, an array goes to Decode like any line.
				Old: `	if IsBatch(data) {`,
				New: `	if false {`,
			}}},
			{step: 4, edits: []variants.Edit{
				// Before step 4, one request at a time, and Send does nothing.
				{File: stdioServe,
					Old: `		c.run(func() {
			defer c.release()
			if resp := c.session.Handle(ctx, msg, c); resp != nil {
				c.out.send(resp)
			}
		})`,
					New: `		if resp := c.session.Handle(ctx, msg, c); resp != nil {
			c.out.send(resp)
		}
		c.release()`},
				{File: stdioServe,
					Old: `func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error { return c.out.send(msg) }`,
					New: `func (c *conn) Send(_ context.Context, msg *jsonrpc.Message) error { return nil }`},
			}},
			{step: 3, edits: []variants.Edit{{File: stdioServe,
				// Before step 3, a blank line is decoded like any other.
				Old: `	if len(data) == 0 {
		return // blank lines carry no message
	}
`,
				New: ``,
			}}},
			{step: 2, edits: []variants.Edit{{File: stdioDecode,
				// Step 1's Decode: straight into jsonrpc.Message.
				Old: `	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {`,
				New: `	if true {
		naive := new(jsonrpc.Message)
		if err := json.Unmarshal(data, naive); err != nil {
			return nil, jsonrpc.NewErrorResponse(jsonrpc.ID{}, jsonrpc.NewError(jsonrpc.CodeParseError, "parse error: %v", err))
		}
		return naive, nil
	}
	if data = bytes.TrimLeft(data, " \t\r\n"); len(data) == 0 || data[0] != '{' {`,
			}}},
		},
		promises: []stepPromise{
			{step: 1, early: []string{"STDIO-10", "STDIO-14", "STDIO-19", "STDIO-22"}},
			{step: 2, early: []string{"STDIO-14", "STDIO-19", "STDIO-21", "STDIO-22"}},
			{step: 3, early: []string{"STDIO-19", "STDIO-21", "STDIO-22"}},
			{step: 4, early: []string{"STDIO-21"}},
			{step: 5},
			{step: 6},
		},
	},
	{
		lesson: "02",
		undos: []undo{
			{step: 6, edits: []variants.Edit{
				// Before step 6, nothing knows stateless mode, whose
				// handler has no session store.
				{File: httpPost,
					Old: `	if h.opts.Stateless {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}
`,
					New: ``},
				{File: httpPost,
					Old: `	if h.opts.Stateless {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}
`,
					New: ``},
			}},
			{step: 5, edits: []variants.Edit{{File: httpPost,
				// Before step 5, every answer is JSON.
				Old: `	ctx := h.requestContext(r)
	if !wantsProgress(msg) {`,
				New: `	if true {
		httpjson.Write(w, http.StatusOK, sess.Handle(h.requestContext(r), msg, nil))
		return
	}
	ctx := h.requestContext(r)
	if !wantsProgress(msg) {`,
			}}},
			{step: 4, edits: []variants.Edit{{File: httpHandler,
				// Before step 4, the starter's 501 answers the rest.
				Old: `		h.methodNotAllowed(w, r)
	}
}`,
				New: `		httpjson.Error(w, http.StatusNotImplemented, codeServerError, "not written yet")
	}
}`,
			}}},
			{step: 3, edits: []variants.Edit{
				// Before step 3, no version header and no batches.
				{File: httpPost,
					Old: `	if stdio.IsBatch(body) {`,
					New: `	if false {`},
				{File: httpPost,
					Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	if msg.IsRequest() && msg.Method == "initialize" {`,
					New: `	if msg.IsRequest() && msg.Method == "initialize" {`},
				{File: httpHandler,
					Old: `	if _, ok := h.ProtocolVersion(w, r, nil); !ok {
		return
	}
	id := r.Header.Get(SessionIDHeader)`,
					New: `	id := r.Header.Get(SessionIDHeader)`},
			}},
			{step: 2, edits: []variants.Edit{
				// Step 1: a fresh session for every message, no ids, and
				// DELETE is not routed yet.
				{File: httpPost,
					Old: `func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {`,
					New: `func (h *Handler) serveInitialize(w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	if true {
		h.serveRequest(w, r, &Session{Session: h.server.NewSession()}, msg)
		return
	}`},
				{File: httpPost,
					Old: `func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {`,
					New: `func (h *Handler) Session(w http.ResponseWriter, r *http.Request) (sess *Session, done func(), ok bool) {
	if true {
		return &Session{Session: h.server.NewSession()}, func() {}, true
	}`},
				{File: httpHandler,
					Old: `	case r.Method == http.MethodDelete && !h.opts.Stateless:`,
					New: `	case false:`},
			}},
		},
		promises: []stepPromise{
			{step: 1, early: []string{"HTTP-20", "HTTP-26"}},
			{step: 2, early: []string{"HTTP-20"}},
			{step: 3},
			{step: 4, early: []string{"HTTP-25"}},
			{step: 5, early: []string{"HTTP-25"}},
			{step: 6},
		},
	},
}

// TestEachStepTurnsItsChecksGreen grades the code as it stands after each
// step of each lesson: all of them built first, then graded several at once,
// as the variants are.
func TestEachStepTurnsItsChecksGreen(t *testing.T) {
	type state struct {
		lesson  *grader.Lesson
		promise stepPromise
		edits   []variants.Edit
		target  check.Target
		err     error
		results []check.Result
	}
	var states []*state
	for _, ls := range lessonStepStates {
		l := grader.LessonByNumber(ls.lesson)
		require.NotNil(t, l)
		for _, p := range ls.promises {
			st := &state{lesson: l, promise: p}
			for _, u := range ls.undos {
				if u.step > p.step {
					st.edits = append(st.edits, u.edits...)
				}
			}
			states = append(states, st)
		}
	}
	root := options(t).Root
	inParallel(len(states), runtime.NumCPU(), func(i int) {
		st := states[i]
		o := grader.Options{Root: root, Base: "solutions"}
		req := build.Request{Root: root, Package: o.Package(st.lesson)}
		if len(st.edits) > 0 {
			tmp, err := build.TempDir()
			if err == nil {
				v := &variants.Variant{Name: "step-" + strconv.Itoa(st.promise.step), Lesson: st.lesson.Number, Edits: st.edits}
				req.Overlay, err = v.Overlay(root, tmp)
			}
			if st.err = err; err != nil {
				return
			}
		}
		bin, err := build.Binary(context.Background(), req)
		st.target, st.err = check.Target{Name: "the code after step " + strconv.Itoa(st.promise.step), Package: req.Package, Binary: bin}, err
	})
	inParallel(len(states), gradeParallel(), func(i int) {
		if st := states[i]; st.err == nil {
			st.results = grader.RunAll(context.Background(), st.lesson, st.target)
		}
	})
	for _, st := range states {
		st := st
		t.Run("Lesson"+st.lesson.Number+"/step"+strconv.Itoa(st.promise.step), func(t *testing.T) {
			require.NoError(t, st.err, "building lesson %s as it stands after step %d", st.lesson.Number, st.promise.step)
			early := map[string]bool{}
			for _, id := range st.promise.early {
				early[id] = true
			}
			var wrong []string
			var reports strings.Builder
			for _, r := range st.results {
				c := r.Check
				wantGreen := c.Step <= st.promise.step || early[c.ID]
				if (r.Status == check.Pass) == wantGreen {
					continue
				}
				wrong = append(wrong, c.ID)
				if wantGreen {
					reports.WriteString(r.Report + "\n")
				} else {
					reports.WriteString(c.ID + " passes, but the lesson says it turns green at step " + strconv.Itoa(c.Step) + "\n")
				}
			}
			sort.Strings(wrong)
			assert.Empty(t, wrong, "after step %d of lesson %s, these checks do not match what the lesson says:\n%s",
				st.promise.step, st.lesson.Number, reports.String())
		})
	}
}

// TestLessonTextsListTheChecks holds each lesson's text to the checks: every
// step's "Make it pass" list names exactly the checks of that step, with
// their titles; the early greens the proof allows are the ones the step's
// text mentions; and the table of checks lists every check with its step
// and title.
func TestLessonTextsListTheChecks(t *testing.T) {
	root := options(t).Root
	for _, ls := range lessonStepStates {
		l := grader.LessonByNumber(ls.lesson)
		text, err := os.ReadFile(filepath.Join(root, l.Guide))
		require.NoError(t, err)
		steps := stepSections(string(text))
		for _, p := range ls.promises {
			section := steps[p.step]
			require.NotEmpty(t, section, "%s has no section for step %d", l.Guide, p.step)
			listed := map[string]string{}
			for _, m := range makeItPassItem.FindAllStringSubmatch(afterHeading(section, "### Make it pass"), -1) {
				listed[m[1]] = strings.TrimSpace(m[2])
			}
			for _, c := range l.Checks {
				if c.Step != p.step {
					assert.NotContains(t, listed, c.ID, "%s lists %s under step %d, but it is a step %d check", l.Guide, c.ID, p.step, c.Step)
					continue
				}
				if assert.Contains(t, listed, c.ID, "%s does not list %s under step %d's \"Make it pass\"", l.Guide, c.ID, p.step) {
					assert.Equal(t, c.Title, listed[c.ID], "%s: the title of %s under step %d", l.Guide, c.ID, p.step)
				}
			}
			for _, id := range p.early {
				assert.Contains(t, section, id, "%s: step %d does not say that %s goes green early", l.Guide, p.step, id)
			}
		}
		mistakes := map[string]string{}
		for _, m := range variantRow.FindAllStringSubmatch(afterHeading(string(text), "## Common mistakes"), -1) {
			mistakes[m[1]] = m[2]
		}
		for _, v := range variants.ForLesson(ls.lesson) {
			caught, ok := mistakes[v.Name]
			if !assert.True(t, ok, "%s's \"Common mistakes\" has no row for the variant %s", l.Guide, v.Name) {
				continue
			}
			want := append([]string(nil), v.Kills...)
			sort.Strings(want)
			got := checkID.FindAllString(caught, -1)
			if strings.HasPrefix(caught, "every check") {
				got = nil
				for _, c := range l.Checks {
					got = append(got, c.ID)
				}
			}
			sort.Strings(got)
			assert.Equal(t, want, got, "%s: the checks that catch %s", l.Guide, v.Name)
		}
		for _, m := range doneLine.FindAllStringSubmatch(string(text), -1) {
			assert.Equal(t, []string{strconv.Itoa(len(l.Checks)), strconv.Itoa(len(l.Checks))}, m[1:3],
				"%s says %q, but the lesson has %d checks", l.Guide, m[0], len(l.Checks))
		}
		courseMap, err := os.ReadFile(filepath.Join(root, "lessons", "README.md"))
		require.NoError(t, err)
		if m := regexp.MustCompile("-run Lesson" + l.Number + "` \\((\\d+) checks\\)").FindStringSubmatch(string(courseMap)); assert.NotNil(t, m, "the course map gives no count of lesson %s's checks", l.Number) {
			assert.Equal(t, strconv.Itoa(len(l.Checks)), m[1], "the course map's count of lesson %s's checks", l.Number)
		}
		rows := map[string][]string{}
		for _, m := range tableRow.FindAllStringSubmatch(string(text), -1) {
			rows[m[1]] = m
		}
		for _, c := range l.Checks {
			row, ok := rows[c.ID]
			if assert.True(t, ok, "%s's table of checks has no row for %s", l.Guide, c.ID) {
				assert.Equal(t, strconv.Itoa(c.Step), row[3], "%s's table: the step of %s", l.Guide, c.ID)
				assert.Equal(t, c.Title, row[4], "%s's table: the title of %s", l.Guide, c.ID)
			}
		}
	}
}

var (
	stepHeading    = regexp.MustCompile(`(?m)^## Step (\d+) `)
	makeItPassItem = regexp.MustCompile(`(?m)^- ([A-Z]+-\d+) (?:· )?(.+)$`)
	tableRow       = regexp.MustCompile(`(?m)^\| ([A-Z]+-\d+) \| (MUST|SHOULD) \| (\d+) \| (.+?) \| .* \|$`)
	variantRow     = regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\| .* \\| ([^|]+) \\|$")
	checkID        = regexp.MustCompile(`[A-Z]+-\d+`)
	doneLine       = regexp.MustCompile(`(\d+) of (\d+) checks pass\. Lesson \d+ is done`)
)

// stepSections splits a lesson into its "## Step N" sections, by N.
func stepSections(text string) map[int]string {
	out := map[int]string{}
	locs := stepHeading.FindAllStringSubmatchIndex(text, -1)
	for i, loc := range locs {
		end := len(text)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		if next := strings.Index(text[loc[1]:end], "\n## "); next >= 0 {
			end = loc[1] + next
		}
		n, _ := strconv.Atoi(text[loc[2]:loc[3]])
		out[n] = text[loc[0]:end]
	}
	return out
}

// afterHeading returns the part of section from heading to the next
// heading of the same level or higher.
func afterHeading(section, heading string) string {
	i := strings.Index(section, heading)
	if i < 0 {
		return ""
	}
	rest := section[i+len(heading):]
	level := strings.Fields(heading)[0] // "##", "###"
	for j := 0; j < len(rest); j++ {
		if rest[j] != '\n' || !strings.HasPrefix(rest[j+1:], "#") {
			continue
		}
		hashes := strings.Fields(rest[j+1:])[0]
		if strings.Trim(hashes, "#") == "" && len(hashes) <= len(level) {
			return rest[:j]
		}
	}
	return rest
}
