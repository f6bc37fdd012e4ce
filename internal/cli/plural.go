package cli

import "github.com/petstore/petstore/internal/words"

// Plural is words.Plural, left here only for conformance/run.go, the last library file that
// still calls it; once run.go says words.Plural, this goes and the exception in
// conformance/layout_test.go with it.
func Plural(n int, noun string) string { return words.Plural(n, noun) }
