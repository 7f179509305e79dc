package export

// Cursor is what a sink was sent of one conversation: every record version
// with a change sequence up to Seq, except the one whose sequence is Held
// (0: none), which an --exclude-last export held back. A record changed
// since gets a sequence above Seq, so it is sent again whole, and the held
// value then matches no record.
type Cursor struct{ Seq, Held int64 }

// Covers reports whether c stands for everything b does: every version b
// says was sent, c says was sent too. A cursor moves forward only to one
// that covers it.
func (c Cursor) Covers(b Cursor) bool {
	top := b.Seq // the newest version b says was sent
	if b.Held == b.Seq && top > 0 {
		top--
	}
	return top <= c.Seq && (c.Held == 0 || c.Held == b.Held || c.Held > b.Seq)
}
