package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// writeReports writes the room's results to dir as results.json (all of
// it, failure reports included), results.csv (a row per checkout and
// lesson) and report.html (one static page: checkouts × lessons).
func writeReports(dir string, r classReport) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "results.json"), r); err != nil {
		return err
	}
	var csvOut bytes.Buffer
	if err := writeCSV(&csvOut, r); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results.csv"), csvOut.Bytes(), 0o644); err != nil {
		return err
	}
	var page bytes.Buffer
	if err := reportPage.Execute(&page, newReportView(r)); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "report.html"), page.Bytes(), 0o644)
}

// csvHeader names the CSV's columns.
// copied is last, so that the columns before it stay where they were.
var csvHeader = []string{"student", "lesson", "state", "passed", "failed", "warned", "not_run", "total", "failing_checks", "outcome", "warnings", "seconds", "path", "copied"}

func writeCSV(buf *bytes.Buffer, r classReport) error {
	w := csv.NewWriter(buf)
	w.Write(csvHeader)
	for _, s := range r.Students {
		for _, l := range s.Lessons {
			t := l.tally()
			w.Write([]string{
				s.Name, l.Number, l.State,
				strconv.Itoa(t.passed()), strconv.Itoa(t.fail), strconv.Itoa(t.warn), strconv.Itoa(t.notRun), strconv.Itoa(len(l.Checks)),
				strings.Join(l.failing(), " "), s.Outcome, strings.Join(s.Warnings, "; "),
				strconv.FormatFloat(s.Seconds, 'f', 1, 64), s.Path, l.Copied,
			})
		}
	}
	w.Flush()
	return w.Error()
}

// reportView is the HTML page's data, worked out in Go so that the
// template only lays it out.
type reportView struct {
	Generated  string
	Course     string
	CopiedNote string
	Copies     int // how many lessons, over all checkouts, are marked copied
	Lessons    []lessonInfo
	Rows       []reportRow
	Totals     []string // per lesson: how many checkouts are done
	Done       int
}

type reportRow struct {
	Name, Outcome, Detail, Class string
	Seconds                      string
	Warnings                     []string
	Cells                        []reportCell
}

type reportCell struct {
	Lesson  string
	Class   string // done, failing, build, notstarted, timeout, error
	Summary string // "24/24", "does not build", …
	Failing []string
	Details string // the first failure's report, or the compiler's output
	Copied  string // the course's version the stage holds, or ""
}

// maxDetails caps the text behind a cell's "details", to keep the page light.
const maxDetails = 8 << 10

func newReportView(r classReport) reportView {
	v := reportView{Generated: r.Generated.Format("2006-01-02 15:04"), Course: r.Course, Lessons: r.Lessons, CopiedNote: r.CopiedNote}
	done := make([]int, len(r.Lessons))
	for _, s := range r.Students {
		row := reportRow{Name: s.Name, Outcome: s.Outcome, Detail: clipText(s.Detail), Seconds: fmt.Sprintf("%.1fs", s.Seconds), Warnings: s.Warnings, Class: "open"}
		if s.AllDone() {
			row.Class = "done"
			v.Done++
		}
		for i, l := range s.Lessons {
			cell := reportCell{Lesson: l.Number, Copied: l.Copied}
			if l.Copied != "" {
				v.Copies++
			}
			t := l.tally()
			switch l.State {
			case stateGraded:
				cell.Summary = fmt.Sprintf("%d/%d", t.passed(), len(l.Checks))
				cell.Class = "failing"
				if l.Done() {
					cell.Class = "done"
					if i < len(done) {
						done[i]++
					}
				}
				cell.Failing = l.failing()
				if f := l.firstFailure(); f != nil {
					cell.Details = clipText(f.Report)
				}
			case stateBuildError:
				cell.Class, cell.Summary, cell.Details = "build", "does not build", clipText(l.BuildOutput)
			case stateNotStarted:
				cell.Class, cell.Summary = "notstarted", "not started"
			case stateTimedOut:
				cell.Class, cell.Summary = "timeout", fmt.Sprintf("timed out (%d/%d passed by then)", t.passed(), len(l.Checks))
			default:
				cell.Class, cell.Summary, cell.Details = "error", "not graded", clipText(l.Error)
			}
			row.Cells = append(row.Cells, cell)
		}
		v.Rows = append(v.Rows, row)
	}
	for _, n := range done {
		v.Totals = append(v.Totals, fmt.Sprintf("%d of %d done", n, len(r.Students)))
	}
	return v
}

func clipText(s string) string {
	if len(s) <= maxDetails {
		return s
	}
	return s[:maxDetails] + fmt.Sprintf("\n… (%d bytes in all; see results.json)", len(s))
}

// reportPage is the classroom report: one self-contained page, readable
// without its script, which only adds a filter.
var reportPage = template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Classroom results · MCP transports in Go</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: .4em .6em; vertical-align: top; text-align: left; }
thead th { background: #f3f3f3; }
.small { font-size: 12px; color: #666; font-weight: normal; }
td.done { background: #e6f4ea; }
td.failing { background: #fdecea; }
td.build, td.timeout, td.error { background: #fff4e5; }
td.notstarted { color: #888; }
.fails { font-family: ui-monospace, monospace; font-size: 12px; }
pre { max-width: 60em; max-height: 24em; overflow: auto; font-size: 12px; background: #fafafa; padding: .5em; }
td.warnings div { color: #8a5300; }
.copied { color: #5a3ea1; font-weight: 600; }
</style>
</head>
<body>
<h1>Classroom results</h1>
<p>Graded {{.Generated}} with the grader of <code>{{.Course}}</code>: <span id="summary">{{.Done}} of {{len .Rows}} checkouts pass every lesson graded</span>.</p>
{{if .Copies}}<p id="copied-note"><span class="copied">copied</span>: {{.CopiedNote}}</p>
{{end}}<p id="controls"></p>
<table id="results">
<thead>
<tr><th>Checkout</th>{{range .Lessons}}<th>{{.Number}} · {{.Title}}<div class="small">{{.Checks}} checks</div></th>{{end}}<th>Warnings</th><th>Time</th></tr>
</thead>
<tbody>
{{range .Rows}}<tr class="student {{.Class}}" data-student="{{.Name}}">
<th scope="row">{{.Name}}<div class="small">{{.Outcome}}</div>{{if .Detail}}<details><summary class="small">why</summary><pre>{{.Detail}}</pre></details>{{end}}</th>
{{range .Cells}}<td class="lesson {{.Class}}" data-lesson="{{.Lesson}}"><span class="count">{{.Summary}}</span>{{if .Copied}}<div class="copied">copied: {{.Copied}}</div>{{end}}{{if .Failing}}<div class="fails">{{range .Failing}}{{.}} {{end}}</div>{{end}}{{if .Details}}<details><summary class="small">{{if eq .Class "build"}}compiler output{{else}}first failure{{end}}</summary><pre>{{.Details}}</pre></details>{{end}}</td>
{{end}}<td class="warnings">{{range .Warnings}}<div>{{.}}</div>{{end}}</td>
<td>{{.Seconds}}</td>
</tr>
{{end}}</tbody>
<tfoot>
<tr><th>Done</th>{{range .Totals}}<td>{{.}}</td>{{end}}<td></td><td></td></tr>
</tfoot>
</table>
<script>
(function () {
  var rows = document.querySelectorAll("tr.student");
  var label = document.createElement("label");
  var box = document.createElement("input");
  box.type = "checkbox";
  box.id = "only-open";
  label.appendChild(box);
  label.appendChild(document.createTextNode(" show only the checkouts that do not pass every lesson"));
  document.getElementById("controls").appendChild(label);
  box.addEventListener("change", function () {
    rows.forEach(function (row) { row.hidden = box.checked && row.classList.contains("done"); });
  });
})();
</script>
</body>
</html>
`))
