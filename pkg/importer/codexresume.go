package importer

// What a Codex read needs to go on from a cursor: every line past it is
// new, but the model in force and the open turn's prompts and outputs
// come from the lines before it.

// codexResume is a Codex cursor's state.
type codexResume struct {
	Model string `json:"model,omitempty"`
	// Prompts: the user's texts of the open turn (an event_msg copy of
	// one of them past the offset is no new prompt).
	Prompts []codexPrompt `json:"prompts,omitempty"`
	// Answered: the call ids of the latest outputs (an exec_command_end
	// of one of them past the offset is a copy).
	Answered []string `json:"answered,omitempty"`
}

// point is where a read may go on past line l. The state is made again
// only when it changed (most lines change none of it): a line costs no
// allocation for it. prompts and answered are never changed in place, so
// the same slice is the same state.
func (d *codexDecoder) point(l line) Point {
	answered := d.lastAnswered()
	if st := d.state; st == nil || st.Model != d.model || !sameSlice(st.Prompts, d.prompts) || !sameSlice(st.Answered, answered) {
		d.state = &codexResume{Model: d.model, Prompts: d.prompts, Answered: answered}
	}
	return Point{Offset: l.end, Line: l.n, State: d.state}
}

// sameSlice reports whether a and b are the same elements of the same
// array.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
