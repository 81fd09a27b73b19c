package main

// notes explain the spec findings, one per check (or per server and check,
// "gosdk/HTTP-08", when servers differ): who reads the spec right, and why.
// Each was written after reading the spec's own text at the section the
// grader cites; a finding without a note is reported by the command, so
// that a new one is read before it is published.
var notes = map[string]string{}

// explain returns the note for server's failure of check id, or "".
func explain(server, id string) string {
	if n, ok := notes[server+"/"+id]; ok {
		return n
	}
	return notes[id]
}
