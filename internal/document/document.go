// Package document holds what the interface document (../shared/pet-store-interface.md, the
// authority) fixes, each fact with the section that states it. The values are written here
// from the document, never read from spec/openapi.yaml: Departures compares a description
// with them, so that `conformance lint` can say where the spec departs from the document and
// the rules can cite the spec, not the document, for a value the document does not give.
//
// What the document leaves open ("not shown": other operations, the answer to an
// out-of-range limit, extra response statuses) is no fact here, and a spec that says
// something there departs from nothing.
package document

// Operation is one operation the document describes (section 4), with the response
// statuses it lists for it.
type Operation struct {
	ID       string
	Method   string // upper case
	Path     string // relative to the base address
	Section  string
	Statuses []int
}

// Operations are the three operations of section 4, their methods, paths and statuses
// (4.1 to 4.3, and the table of section 7).
var Operations = []Operation{
	{ID: "listPets", Method: "GET", Path: "/pets", Section: "4.1", Statuses: []int{200, 401}},
	{ID: "createPet", Method: "POST", Path: "/pets", Section: "4.2", Statuses: []int{201, 400, 401}},
	{ID: "getPet", Method: "GET", Path: "/pets/{petId}", Section: "4.3", Statuses: []int{200, 401, 404}},
}

// Limit is listPets' limit query parameter: optional, an integer from 1 to 100, 20 when
// absent (4.1 and the table of section 8).
var Limit = struct {
	Operation, Parameter string
	Min, Max, Default    int64
	Section              string
}{Operation: "listPets", Parameter: "limit", Min: 1, Max: 100, Default: 20, Section: "4.1; 8"}

// StatusFilter is listPets' optional status query parameter, a PetStatus (4.1).
var StatusFilter = struct{ Operation, Parameter, Section string }{"listPets", "status", "4.1"}

// PetStatus are the values of the PetStatus enumeration (2, PetStatus; 3).
var PetStatus = struct {
	Schema  string
	Values  []string
	Section string
}{Schema: "PetStatus", Values: []string{"available", "pending", "sold"}, Section: "2 (PetStatus)"}

// Record is a record of section 2 and the fields it requires.
type Record struct {
	Name     string
	Required []string
	Section  string
}

// Records are the records whose required fields section 2 fixes: NewPet (createPet's body,
// also 4.2), Pet and Error (also 7).
var Records = []Record{
	{Name: "NewPet", Required: []string{"categoryId", "name"}, Section: "2 (NewPet)"},
	{Name: "Pet", Required: []string{"categoryId", "id", "name"}, Section: "2 (Pet)"},
	{Name: "Error", Required: []string{"code", "message", "status"}, Section: "2 (Error)"},
}

// Auth is the authentication of section 5: every operation requires an HTTP bearer token.
var Auth = struct {
	Type, Scheme, Section string
}{Type: "http", Scheme: "bearer", Section: "5.1"}

// Removal is the deprecated operation, its removal date and its replacement (4.3; 9.3): the
// replacement is GET /pets with the status filter.
var Removal = struct {
	Operation, Date, ReplacedBy, Section string
}{Operation: "getPet", Date: "2030-12-05", ReplacedBy: "listPets", Section: "4.3; 9.3"}
