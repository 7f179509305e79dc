// Package extractive is convo's offline summarizer: it writes the text of a
// summary record from the records it covers and the previous summary,
// without a model, deterministically, byte for byte the same for the same
// input.
//
// # What a summary holds, in order
//
//  1. Notes, the gist: a heading, then one line per exchange, "what the
//     user said → what the assistant or a tool answered", each side a few
//     phrases taken verbatim, casing kept, from that exchange. A tool call
//     is its name and the arguments that identify things (paths, commands,
//     ids); a tool result is its first line and its size, never its body:
//     agent CLIs mask old tool output the same way.
//  2. The ledger, what must survive word for word (package facts): every
//     identifier said in the covered span (ids and codes with digits,
//     e-mail addresses, URLs, IBANs, phone numbers, versions, dates, times
//     with their zone, amounts, paths, commands) with the few words of its own sentence that
//     say what it is ("courier reference AZ-7781-XQ"), and the user's
//     standing instructions verbatim, grouped by who said them. It is
//     carried from summary to summary in the record's aux.ledger, so
//     summarizing again never loses an entry the notes dropped.
//
// # How the budget is split
//
// The caller gives a budget B (a share of the tokens covered, within a
// ceiling: see pkg/summarize). The ledger is protected: it is planned
// first, by entries, not by tokens, up to the ledger bound (--ledger-size),
// and is never cut to make room for notes. Past that bound its entries are
// ranked (the user's instructions, then what the user said, then what was
// said more often, then the newest) and the ledger says how many it
// dropped. The notes get what the ledger leaves of B, and at least a
// quarter of B; an entry the notes already hold word for word is not
// repeated, and its room goes back to notes.
//
// # The words used here
//
//   - phrase: a run of words between punctuation and function words, cut
//     from a record's text (phrases.go); the unit the notes are made of.
//   - note: a phrase as a candidate for the summary, with its exchange
//     (turn), its side (user or reply), its speaker and its score.
//   - score: what a note's words are worth per token (score.go holds every
//     weight): each word's rarity in general text plus its inverse
//     frequency among the candidates, divided by the note's tokens plus a
//     bias.
//   - fit: the greedy that takes notes best first by what they add to the
//     notes taken already and to the ledger's labels and facts (its words
//     count as held from the start), until the budget is spent
//     (greedy.go). A pass is one walk of the greedy over the candidates; a
//     span too long to hold is streamed again for each pass.
//   - ledger entry: one identifier or instruction, verbatim, with its
//     label words, who said it and how often (package facts).
//
// English: the function words phrases are cut at and the words that open
// an instruction ("please", "always", "never") are English. Identifiers are found in any
// language; notes of other languages are cut at punctuation only.
package extractive
