package lint

import (
	"errors"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// componentKeys maps kin-openapi's component section labels to their keys in the document.
var componentKeys = map[string]string{
	"schema":          "schemas",
	"parameter":       "parameters",
	"header":          "headers",
	"request body":    "requestBodies",
	"response":        "responses",
	"security scheme": "securitySchemes",
	"example":         "examples",
	"link":            "links",
	"callback":        "callbacks",
}

// sectionKeys maps kin-openapi's section labels to root keys of the document.
var sectionKeys = map[string]string{
	"components":    "components",
	"info":          "info",
	"paths":         "paths",
	"security":      "security",
	"servers":       "servers",
	"tags":          "tags",
	"external docs": "externalDocs",
	"webhooks":      "webhooks",
}

// validationPointer derives the JSON pointer of the node a kin-openapi validation error is
// about from the context wrappers in its chain (section, path, method, component). It stops
// at the first wrapper it cannot place, so the pointer names the deepest node known for sure.
func validationPointer(err error) string {
	var tokens []string
	for e := err; e != nil; e = errors.Unwrap(e) {
		switch w := e.(type) {
		case *openapi3.SectionValidationError:
			key, ok := sectionKeys[w.Section]
			if !ok || len(tokens) > 0 {
				return Pointer(tokens...)
			}
			tokens = append(tokens, key)
		case *openapi3.PathValidationError:
			tokens = append(tokens, w.Path)
		case *openapi3.OperationValidationError:
			tokens = append(tokens, strings.ToLower(w.Method))
		case *openapi3.ComponentValidationError:
			key, ok := componentKeys[w.Section]
			if !ok {
				return Pointer(tokens...)
			}
			tokens = append(tokens, key, w.Name)
		case *openapi3.TagValidationError:
			// Tags are a list; the name does not give the index, so stop at #/tags.
			return Pointer(tokens...)
		}
	}
	return Pointer(tokens...)
}
