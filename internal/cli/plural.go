package cli

import "fmt"

// Plural is the count n with its noun, for the commands' messages: "1 rule", "2 rules",
// "0 warnings". noun is the singular; the plural adds an s.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
