package mutants

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/petstore/petstore/conformance/mutants/kit"
)

// anatomyMutants are faults in parts of the request a framework or a front server interprets
// on its own (docs/anatomy.md): what only the anatomy's cases and the refused-write oracle
// send or see.
func anatomyMutants(*facts) []Mutant {
	return []Mutant{
		{
			Name:  "list-head-500",
			Fault: "HEAD on the collection crashes (500): the listing handler writes a body HEAD may not carry.",
			Catch: []string{"listPets/cases-anatomy"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				return r.Method == http.MethodHead && path.Base(r.URL.Path) == "pets"
			}),
		},
		{
			// Not of the anatomy: a fault of a documented parameter's encoding, which only
			// the query family sends (the anatomy leaves the documented values to it).
			Name:  "list-status-encoded-ignored",
			Fault: "A status filter written with a percent-encoded letter (status=%73old) is not decoded, matches no known value, and is dropped: every status is listed.",
			Catch: []string{"listPets/cases-query"},
			Wrap: kit.Request(func(r *http.Request) bool { return kit.IsList(r) && strings.Contains(r.URL.RawQuery, "status=%") }, func(r *http.Request) {
				q := r.URL.Query()
				q.Del("status")
				r.URL.RawQuery = q.Encode()
			}),
		},
		{
			Name:  "create-override-get",
			Fault: "POST /pets with X-HTTP-Method-Override: GET is served as the listing (a method-override middleware on by default): nothing is created.",
			Catch: []string{"createPet/cases-anatomy"},
			Wrap: kit.Request(func(r *http.Request) bool { return kit.IsCreate(r) && overridden(r) == http.MethodGet }, func(r *http.Request) {
				r.Method, r.Body, r.ContentLength = http.MethodGet, http.NoBody, 0
				r.Header.Del("Content-Type")
			}),
		},
		{
			Name:  "get-override-delete",
			Fault: "GET /pets/{petId} with a method override naming DELETE is taken as a delete (answered 204): a read turned into a removal.",
			Catch: []string{"getPet/cases-anatomy"},
			Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if kit.IsGet(r) && keyed(r) && overridden(r) == http.MethodDelete {
						w.WriteHeader(http.StatusNoContent)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		},
		{
			Name: "create-stored-then-refused",
			Fault: "POST /pets stores the animal, then refuses the request for a header field the service does not expect " +
				"(a validation step after the write): the client is told it failed, the animal is there.",
			Catch: []string{"createPet/cases-anatomy", "createPet/cases-headers"},
			Wrap: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if kit.IsCreate(r) && keyed(r) && unexpectedHeader(r) != "" {
						rp := kit.Capture(next, r)
						if rp.Status/100 == 2 {
							kit.Fail(w, http.StatusBadRequest, "invalid_request", "unexpected header "+unexpectedHeader(r))
							return
						}
						rp.Send(w)
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		},
		{
			Name: "create-chunked-large-empty",
			Fault: "A chunked body over 16 KiB reaches the application empty (a front server that hands it on without its length, " +
				"as Apache's mod_proxy_fcgi does to PHP-FPM): a valid animal is refused as a body missing its fields.",
			Catch: []string{"createPet/cases-anatomy"},
			Wrap: kit.Body(func(r *http.Request) bool { return kit.IsCreate(r) && slices.Contains(r.TransferEncoding, "chunked") },
				func(_ *http.Request, b []byte) []byte {
					if len(b) > 16<<10 {
						return nil
					}
					return b
				}),
		},
		{
			Name:  "get-id-underscore",
			Fault: "A petId with underscores between its digits is read as the number without them (Ruby's Integer(), Python's int()): 1_0 is animal 10.",
			Catch: []string{"getPet/cases-path"},
			Wrap: kit.Request(func(r *http.Request) bool { return kit.IsGet(r) && strings.Contains(path.Base(r.URL.Path), "_") }, func(r *http.Request) {
				dir, id := path.Split(r.URL.Path)
				r.URL.Path, r.URL.RawPath = dir+strings.ReplaceAll(id, "_", ""), ""
			}),
		},
		{
			Name:  "auth-underscore-field",
			Fault: "A field named Authorization_ is read as Authorization (Rack names both HTTP_AUTHORIZATION_ and Grape's headers map it back): the key is taken outside the Authorization field.",
			Catch: []string{"listPets/cases-auth", "createPet/cases-auth", "getPet/cases-auth"},
			Wrap: kit.Request(func(r *http.Request) bool { return r.Header.Get("Authorization_") != "" }, func(r *http.Request) {
				r.Header.Set("Authorization", r.Header.Get("Authorization_"))
			}),
		},
		{
			Name:  "create-query-fills-body",
			Fault: "POST /pets takes the fields its body lacks from the query string (parameters merged, as Grape, Rails and Laravel do): a body without name is completed by ?name=.",
			Catch: []string{"createPet/cases-body"},
			Wrap: kit.Request(kit.IsCreate, func(r *http.Request) {
				q := r.URL.Query()
				b, _ := io.ReadAll(r.Body)
				var m map[string]any
				if kit.Decode(b, &m) && m != nil {
					for _, name := range []string{"name", "categoryId", "status"} {
						if _, ok := m[name]; !ok && q.Has(name) {
							m[name] = queryValue(q.Get(name))
						}
					}
					b, _ = json.Marshal(m)
				}
				r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
			}),
		},
		{
			Name: "get-front-method-html",
			Fault: "A front server answers a method it does not know (TRACE, PETS, a lower-case get) itself, with its own text/html 405 page " +
				"before the application reads the key (nginx and Apache in front of Dancer2 and Symfony, zoo/FINDINGS.md dancer-4, dancer-5, sym-6).",
			Catch: []string{"getPet/cases-anatomy"},
			Wrap: frontPage(func(r *http.Request) bool {
				return !slices.Contains([]string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}, r.Method)
			}, http.StatusMethodNotAllowed),
		},
		{
			Name:  "list-front-fields-html",
			Fault: "More than 100 header fields are refused by the front server with its text/html 400 page (Apache LimitRequestFields, zoo/FINDINGS.md sym-8).",
			Catch: []string{"listPets/cases-anatomy"},
			Wrap:  frontPage(func(r *http.Request) bool { return len(r.Header) > 100 }, http.StatusBadRequest),
		},
		{
			Name: "get-if-match-412-empty",
			Fault: "GET with an If-Match no animal matches is answered 412 with an empty application/json body: the front server evaluates the " +
				"precondition on the application's answer and drops its body (Apache over FastCGI, zoo/FINDINGS.md sym-16).",
			Catch: []string{"getPet/cases-anatomy"},
			Wrap: kit.Respond(func(r *http.Request) bool {
				return kit.IsGet(r) && r.Header.Get("If-Match") != "" && r.Header.Get("If-Match") != "*"
			},
				func(_ *http.Request, rp *kit.Reply) {
					rp.Status, rp.Body = http.StatusPreconditionFailed, nil
				}),
		},
		{
			Name: "list-input-vars-1000",
			Fault: "Query parameters after the 1000th are dropped without a word (PHP max_input_vars, qs parameterLimit): a limit sent after " +
				"1000 other parameters is not applied (zoo/FINDINGS.md sym-5).",
			Catch: []string{"listPets/cases-anatomy"},
			Wrap: kit.Request(kit.IsList, func(r *http.Request) {
				if pairs := strings.Split(r.URL.RawQuery, "&"); len(pairs) > 1000 {
					r.URL.RawQuery = strings.Join(pairs[:1000], "&")
				}
			}),
		},
		{
			Name: "list-bad-escape-500-first",
			Fault: "A bad percent-escape in the query (%zz) makes the query parser raise before the key is read: 500, with or without a key " +
				"(Rack under Grape, zoo/FINDINGS.md grape-10).",
			Catch: []string{"listPets/cases-anatomy"},
			Wrap: kit.CrashWhen(func(r *http.Request) bool {
				_, err := url.ParseQuery(r.URL.RawQuery)
				return kit.IsList(r) && err != nil
			}),
		},
	}
}

// frontPage answers the requests when selects with status and a front server's text/html
// page, before the application (and its key check) sees them.
func frontPage(when func(*http.Request) bool, status int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !when(r) {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, "<html><head><title>"+http.StatusText(status)+"</title></head><body><h1>"+http.StatusText(status)+"</h1></body></html>\n")
		})
	}
}

// queryValue is a query parameter's value as a JSON value: a number when it is one.
func queryValue(v string) any {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return n
	}
	return v
}

// overridden is the method r names in a method-override field or _method parameter, upper
// case ("" for none).
func overridden(r *http.Request) string {
	for _, name := range []string{"X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"} {
		if v := r.Header.Get(name); v != "" {
			return strings.ToUpper(v)
		}
	}
	return strings.ToUpper(r.URL.Query().Get("_method"))
}

// expectedHeaders are the fields a plain client's create carries.
var expectedHeaders = map[string]bool{"Authorization": true, "Content-Type": true, "Content-Length": true,
	"Accept-Encoding": true, "User-Agent": true}

// unexpectedHeader is a field of r outside expectedHeaders ("" for none).
func unexpectedHeader(r *http.Request) string {
	for k := range r.Header {
		if !expectedHeaders[http.CanonicalHeaderKey(k)] {
			return k
		}
	}
	return ""
}
