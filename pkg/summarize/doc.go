// Package summarize folds the old part of a transcript into one summary
// record (SPEC sections 2 and 4). Choosing the span, shaping the text, the
// fact ledger and the summary record are pure functions over transcript
// records; the summarizers themselves sit behind one small interface
// (Summarizer, over package span's Input and Output), and the offline
// default (package extractive) is handed in by the caller: this package
// never imports it.
//
// # What a summary is
//
// A summary record stands for the records it covers (summaryIds) and the
// summary before it. Its text is, in order:
//
//   - for a span with tool calls (an agent session), its sections:
//     Requests (the user's messages verbatim, the first and the latest
//     always), Files, Commands with their outcomes, and Errors (the error
//     lines of the tool results), each bounded (package facts, sections*.go);
//   - the summarizer's text: for the extractive engine, notes, a line per
//     exchange of clauses taken verbatim (extractive/doc.go says how they
//     are chosen);
//   - the ledger, "Facts carried verbatim:": the identifiers said in the
//     span with their labels and the user's instructions whole, those the
//     text above does not hold already.
//
// # The budget
//
// The budget is --summary-ratio of the tokens covered, within
// [100, --max-summary-tokens] (summaryBudget). The ledger is protected: bounded
// by entries (--ledger-size), ranked by rankLedger, never cut for the
// notes. The sections take at most half of the budget. The notes get what
// the ledger and the sections leave, and at least a quarter of it
// (notesShare). So a summary of a span dense with identifiers can be longer
// than its budget: the price of not losing them.
//
// # The carry
//
// The ledger (aux.ledger, aux.ledgerDropped) and the sections
// (aux.sections) are carried from summary to summary on the record, and
// the notes of the previous summary are weighed again with the new
// records: summarizing again never loses an entry the notes dropped, and
// never makes a summary of a summary's words alone.
package summarize
