// Package search turns text into the terms a catalog's search index holds and a query is
// matched by: the build analyzes every skill's fields with it, and the plugin analyzes
// each query with it, so the two always agree. It imports only the standard library: it
// is linked into the plugin.
//
// A term is made in four steps (Terms):
//
//   - split: a word is a run of letters and digits; anything else (spaces, punctuation,
//     hyphens, underscores, symbols) separates words, and so does a change of case inside
//     a word, camelCase style ("PdfFormFiller" and "PDFForm" are three and two words), so
//     that `pdf-form-filler`, `PdfFormFiller` and `pdf form filler` meet;
//   - fold: lower case (Unicode simple case mapping), a Latin letter with a diacritic its
//     base letter ("résumé" is "resume"; a combining mark is dropped wherever it stands),
//     fullwidth forms and the Latin ligatures their ASCII letters, as compatibility
//     normalization (NFKC) would;
//   - bound: a word longer than MaxWordBytes is cut there;
//   - stem: an ASCII word is reduced to its English stem (Porter2, the Snowball English
//     stemmer: "filling", "fills" and "filled" are "fill"); any other word is kept folded.
package search
