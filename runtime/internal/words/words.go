// Package words holds the small wording helpers the CLI's rooms share when they say
// something to a person: serving's progress and summaries, pull's and verify's reports.
package words

import "strconv"

// Plural is n and noun, the noun with an "s" unless n is 1: "1 skill", "3 skills".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
