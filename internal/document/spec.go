package document

import _ "embed" // Spec

// Spec is a description that follows the document in every fact above: spec/openapi.yaml as
// it was when the facts were written, frozen. Tests that make a departure or a lint fault
// start from it, so that they do not depend on spec/openapi.yaml, which may depart on
// purpose (docs/spec-authors.md).
//
//go:embed spec.yaml
var Spec []byte
