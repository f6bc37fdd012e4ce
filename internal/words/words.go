// Package words holds the project's wording of counts, for every message and report that
// says how many of something there are: "1 rule", "2 rules". It imports only the standard
// library, so that any package, the result model and the judge included, may use it.
package words

import "strconv"

// Plural is the count n with its noun: "1 rule", "2 rules", "0 warnings". noun is the
// singular; the plural adds an s.
func Plural(n int, noun string) string { return strconv.Itoa(n) + " " + Noun(n, noun) }

// Noun is noun as n of them are written, without the count: "rule" for 1, "rules" otherwise.
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return noun + "s"
}
