// Package search turns text into the terms a catalog's search index holds and a query is
// matched by: the build analyzes every skill's fields with it, and the plugin analyzes
// each query with it, so the two always agree. It imports only the standard library: it
// is linked into the plugin.
//
// A term is made in four steps (Terms):
//
//   - split: a word is a run of letters, digits and marks (an Indic vowel sign stays in
//     its word); anything else (spaces, punctuation, hyphens, underscores, symbols)
//     separates words, and so does a change of case inside a word, camelCase style
//     ("PdfFormFiller" and "PDFForm" are three and two words), so that
//     `pdf-form-filler`, `PdfFormFiller` and `pdf form filler` meet;
//   - fold: each rune is read as its compatibility decomposition (NFKD: a fullwidth Ｆ,
//     a mathematical 𝐅 and the ligature ﬁ are the letters they stand for, x² is x2, ㎏
//     is kg), its nonspacing marks dropped ("résumé" is "resume"; a combining mark is
//     dropped wherever it stands), then lower case (every case of a letter to one: Σ, σ
//     and ς are σ), and the Latin letters that have no decomposition written as in ASCII
//     (ß ss, æ ae, ø o, ł l); strings equal under NFKC and case folding fold alike, split
//     alike (the capital ligature Ĳ, one letter here, aside);
//   - bound: a word longer than MaxWordBytes is cut there;
//   - stem: an ASCII word is reduced to its English stem (Porter2, the Snowball English
//     stemmer: "filling", "fills" and "filled" are "fill"); any other word is kept folded.
package search
