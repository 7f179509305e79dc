// Package extractive is convo's offline summarizer: it writes the text of a
// summary record from the records it covers and the previous summary,
// without a model, deterministically, byte for byte the same for the same
// input.
//
// # What a summary holds, in order
//
//  1. Notes, the gist: a heading, then one line per exchange, "what the
//     user said → what the assistant answered", each side a few clauses
//     taken verbatim, casing kept, from that exchange (the clause rule
//     below). A span with tool calls has sections (3) that hold its calls
//     and their outcomes, and its notes are the Decisions, with no tool
//     output; read without sections, a tool call is its name and the
//     arguments that identify things (paths, commands, ids), and a tool
//     result its error lines, its first line and its size, never its body:
//     agent CLIs mask old tool output the same way.
//  2. The ledger, what must survive word for word (package facts): every
//     identifier said in the covered span (ids and codes with digits,
//     e-mail addresses, URLs, IBANs, phone numbers, versions, dates, times
//     with their zone, amounts, paths, commands) with the few words of its own sentence that
//     say what it is ("courier reference AZ-7781-XQ"), and every sentence
//     of the user's that instructs, whole, never clipped, grouped by who
//     said them. An instruction is an imperative, bare or not ("Do not
//     …", "Don't …", "Never …", "Always …", "Please …", "Make sure …",
//     "Remember to …", "Stop …", "Avoid …"), or a modal aimed at the
//     assistant ("you must / should / shouldn't / need to / have to …",
//     "I want you to …", "from now on …", "going forward …"); instructions
//     rank first, and past the ledger's bound the newest win. The ledger is
//     carried from summary to summary in the record's aux.ledger, so
//     summarizing again never loses an entry the notes dropped.
//  3. For a span with tool calls (an agent session), sections, each
//     bounded, before the notes (package facts finds them): Requests, the
//     user's messages verbatim (the first and the latest always, the others
//     newest first within their share); Files, each path read, written or
//     edited, with what was done; Commands, each command run with its
//     outcome; Errors, the lines of a tool result that report an error,
//     wherever they sit in it, with the call they came from. A tool
//     result's body feeds none of them but through its error lines: code
//     names read from a file are not facts. Under the sections the notes
//     are the Decisions: a line per exchange of the user's and the
//     assistant's own words, as clauses; a tool call or result makes no
//     note there, since the sections hold it.
//
// # The clause rule: a note never says the opposite of what was said
//
// A note is read by a model or a person as something that was said, so it
// is a whole sentence, or a part of one cut only where a clause ends, taken
// verbatim: it keeps its subject, its negation and its modal. Never a run
// of words cut at function words: "the backup server; use for exports" from
// "The backup server is not the one we use for exports" says the opposite.
//
// Sentences end at ".", "!" or "?" before a space or the end of the text,
// and at a line break; a stop inside a word (a version, a decimal, an
// address, "e.g.") does not end one. Inside a sentence a clause ends at
// exactly these boundaries (clauses.go):
//
//   - ";"; ":" before a space; a dash between spaces (" - ", " – ", " — "),
//     none of them inside a code span ("`runtime error: index out of
//     range`" is quoted whole);
//   - a coordinating conjunction (and, but, or, so, yet) that joins two
//     clauses: when a subject pronoun (I, we, you, he, she, it, they,
//     there) follows it, or after a comma when what follows has a verb of
//     its own (a subject pronoun, an auxiliary or modal, a contraction).
//     "salt and pepper" and "the fence, and the gate" are one clause. A
//     conjunction inside a subordinate or relative clause (after "if",
//     "because", "when", "where", "which", "who" …, up to the next
//     boundary) parts nothing: it may join two parts of that clause ("the
//     point where anyone else would quit and you're not going to stop").
//
// A tool's output is lines, not prose: each line of a short result is one
// note, whole.
//
// No other word ends a clause. A condition or time clause ("if", "unless",
// "until", "when", "because", "although", "before", "after", "since",
// "while") has no boundary of its own, so it stays with its main clause:
// "We won't move the servers until the lease is signed" is one note. Four
// rules keep a negation or a condition with what it governs:
//
//   - a clause that opens with "nor", "neither" or "not" (an ellipsis of
//     the clause before it) is joined to the clause before it;
//   - a sentence whose first clause is a negated frame ("I don't think",
//     "I do not believe", "it's not that", "it's not true that", "I doubt")
//     is one clause: nothing under the frame is a note on its own;
//   - a sentence that opens with a condition or time clause ("If the refund
//     has not arrived, reply and we will open a trace") is one clause: the
//     condition governs every clause after it;
//   - a clause with no verb of its own after a negated clause ("I don't eat
//     meat, or fish") is joined to it.
//
// The negation cues (English): not, n't, no, never, none, nobody, nothing,
// nowhere, neither, nor, without, cannot, "no one". A clause holds its cues,
// so a note that is a clause holds them too; TestNotesKeepNegation checks
// it on every generated domain: for every note, the sentence it came from
// holds no cue, in the note's clause or in one it depends on, that the note
// lacks.
//
// A long sentence is shortened only by taking some of its clauses and not
// the others; a long clause is never clipped (its score, divided by its
// tokens, makes it rarely worth its room). A note says who said it: the side of its line (user, or
// after the arrow the assistant or a tool) and the speaker's name.
//
// Text of other languages is cut at punctuation and line breaks only; the
// conjunctions and cues are English.
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
//   - clause: a sentence, or a part of one between the boundaries above,
//     cut from a record's text (clauses.go); the unit the notes are made of.
//   - note: a clause as a candidate for the summary, with its exchange
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
// English: the conjunctions clauses are cut at, the negation cues and the
// words that open an instruction ("Do not", "Please", "Always", "you
// must") are English. Identifiers are found in any language; notes of
// other languages are cut at punctuation only.
package extractive
