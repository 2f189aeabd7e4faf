// Package render writes ngstats' report (a *stats.Report) for people and
// scripts: WriteText (aligned tables for a terminal, control characters
// escaped), WriteJSON (the report's stable keys), WriteMarkdown (a
// heading per table, at a given level; CardMarkdown puts it under a
// dataset card's "## Statistics"), and WriteHTML (one self-contained page
// with inline SVG charts and the dialogue browser, fetching nothing).
// OneClassWarnings and DemoText are the lines ngstats also says on stderr
// or beside the totals. CardSummary audits and collects the records ngcat
// --hf exports and renders their report for the card.
//
// The files by concern: the tables every format but JSON lays out
// (text.go, with models.go, persona.go, oneclass.go, and the evaluation
// tables of evaltables.go and pacttables.go), the HTML page (html.go,
// htmltemplate.go, htmlcharts.go, htmleval.go, and browse.go, the view of
// the browsed dialogues), and the dataset card (card.go).
package render
