// Package lex holds the scanners that read one line of dialogue text, the
// lowest level of pkg/dialogue's parser: what a line starts with (a speaker
// label in all its forms: ParseSpeaker; a header: ParseHeader; a prose
// label: IsNarrLabel), whether a string can be a speaker's name
// (ValidName, the weak forms), and the markup in and around a line: end
// markers, separators, brackets and stage-direction delimiters, quotes,
// markdown emphasis, dashes, HTML entities and zero-width spaces.
//
// Its functions look at one string and keep no state: they report what
// they find, and the parser (pkg/dialogue) decides what a line is, files
// it, notes the defects and counts what was removed. The vocabularies the
// scanners match (HeaderWords, HeaderLeads, NarrationLabels, EndMarkers)
// live here, beside them; pkg/dialogue exports them to its callers.
//
// Speed matters: the scanners run on every line of every record of an
// import, so they are written by hand, without regexp, and do not allocate
// on the common path.
package lex
