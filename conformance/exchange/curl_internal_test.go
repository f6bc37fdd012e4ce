package exchange

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/petstore/petstore/spec"
)

// A body that is not UTF-8 is reproduced byte for byte by its curl line, run by a POSIX
// shell, and the line itself is valid UTF-8 with no control character in it (issue 22,
// item 6).
func TestCurlReproducesBytesThatAreNotUTF8(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	got := make(chan []byte, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(srv.Close)
	facts, err := spec.ReadFacts(spec.MustLoad())
	require.NoError(t, err)
	s, err := New(Config{BaseURL: srv.URL + "/v1", APIKey: "KEY", Facts: facts})
	require.NoError(t, err)
	for _, body := range [][]byte{
		[]byte("{\"name\":\"conformance-\xff\xfe\",\"categoryId\":1}"),
		[]byte("{\"name\":\"100% \\\\ 'quoted' \x00\x1b[31m\xc3\",\"categoryId\":1}\n"),
	} {
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/pets", bytes.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		line := s.curl(req, body)
		assert.True(t, utf8.ValidString(line), line)
		assert.NotContains(t, line, "\x1b")
		assert.NotContains(t, line, "\x00")
		cmd := exec.Command("sh", "-c", line+" -o /dev/null")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "PETSTORE_API_KEY=KEY"}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s\n%s", line, out)
		assert.Equal(t, body, <-got, line)
	}
}

func TestUnprintable(t *testing.T) {
	assert.False(t, unprintable([]byte("{\"name\":\"Zoë 🐕\"}\n\t\r")))
	assert.True(t, unprintable([]byte("a\xffb")))
	assert.True(t, unprintable([]byte("a\x1b[31mb")))
	assert.True(t, unprintable([]byte("a\x00b")))
}

// Requests on one connection are one curl command; the one that reads its body from printf
// has the printf in front of the whole command.
func TestOnOneConnection(t *testing.T) {
	binary := curlCmd{pipe: `printf '\037\213x' | `, args: `curl -sS -i --data-binary @- 'http://h/v1/pets'`}
	plain := curlCmd{args: `curl -sS -i 'http://h/v1/pets'`}
	assert.Equal(t, `curl -sS -i 'http://h/v1/pets' --next -sS -i 'http://h/v1/pets'`, onOneConnection([]curlCmd{plain, plain}))
	assert.Equal(t, `printf '\037\213x' | curl -sS -i --data-binary @- 'http://h/v1/pets' --next -sS -i 'http://h/v1/pets'`,
		onOneConnection([]curlCmd{binary, plain}))
	assert.Equal(t, `printf '\037\213x' | curl -sS -i 'http://h/v1/pets' --next -sS -i --data-binary @- 'http://h/v1/pets'`,
		onOneConnection([]curlCmd{plain, binary}))
	assert.Equal(t, binary.String()+"\n"+binary.String(), onOneConnection([]curlCmd{binary, binary}), "curl has one input")
}
