package load

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCPUList(t *testing.T) {
	for text, cpus := range map[string][]int{"0": {0}, "0-1": {0, 1}, "0-3,6": {0, 1, 2, 3, 6}, "1,3,5-6": {1, 3, 5, 6}} {
		got, err := ParseCPUList(text)
		require.NoError(t, err, text)
		assert.Equal(t, cpus, got, text)
		assert.Equal(t, text, CPUList(cpus))
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "0,,1"} {
		_, err := ParseCPUList(bad)
		assert.Error(t, err, bad)
	}
	assert.NotEmpty(t, AllowedCPUs())
}

// The server gets the first cores and the generator the rest; with none left, the generator
// shares them all and the words say so. Without taskset only GOMAXPROCS limits the server.
func TestPlace(t *testing.T) {
	cpus := []int{0, 1}
	one, err := Place(cpus, 1, "/usr/bin/taskset")
	require.NoError(t, err)
	assert.Equal(t, Placement{Server: []int{0}, Generator: []int{1}, Taskset: "/usr/bin/taskset"}, one)
	assert.Equal(t, []string{"/usr/bin/taskset", "-c", "0", "petstore", "serve"}, one.Wrap([]string{"petstore", "serve"}))
	assert.Equal(t, "server on CPU 0, load generator on CPU 1", one.String())

	two, err := Place(cpus, 2, "/usr/bin/taskset")
	require.NoError(t, err)
	assert.True(t, two.Shared)
	assert.Equal(t, "server on CPUs 0-1, load generator on CPUs 0-1: it shares the server's cores, this machine has no core left for it", two.String())

	unpinned, err := Place(cpus, 2, "")
	require.NoError(t, err)
	assert.Equal(t, []string{"env", "GOMAXPROCS=2", "petstore"}, unpinned.Wrap([]string{"petstore"}))
	assert.Contains(t, unpinned.String(), "unpinned (taskset not found)")
	assert.NoError(t, unpinned.PinGenerator(), "unpinned, nothing to do")

	_, err = Place(cpus, 3, "")
	assert.ErrorContains(t, err, "3 server cores asked for, 2 available (0-1)")
}

// The generator pins itself to the cores it may use already: a no-op that runs taskset.
func TestPinGenerator(t *testing.T) {
	p := Placement{Generator: AllowedCPUs(), Taskset: "/usr/bin/taskset"}
	if _, err := os.Stat(p.Taskset); err != nil {
		t.Skip("no taskset on this machine")
	}
	require.NoError(t, p.PinGenerator())
}

func TestComparison(t *testing.T) {
	results := []Result{{Server: Validated, Case: "GET", RPS: 200, P50: 200, CPUPerRequest: 50 * time.Microsecond},
		{Server: NoValidation, Case: "GET", RPS: 300, CPUPerRequest: 45 * time.Microsecond},
		{Server: BaselineServer, Case: "GET", RPS: 400, CPUPerRequest: 40 * time.Microsecond}}
	var b bytes.Buffer
	WriteComparison(&b, []Comparison{
		{Cores: 1, Placement: Placement{Server: []int{0}, Generator: []int{1}, Taskset: "taskset"}, Results: results},
		{Cores: 2, Placement: Placement{Server: []int{0, 1}, Generator: []int{0, 1}, Shared: true, Taskset: "taskset"},
			Results: []Result{{Server: Validated, Case: "GET", RPS: 1000, Errors: 2}}},
	}, []Case{{Name: "GET"}})
	assert.Equal(t, "| server cores | case | req/s: validated | --no-validation | baseline | validated / --no-validation | validated / baseline |\n"+
		"|---:|---|---:|---:|---:|---:|---:|\n"+
		"| 1 | GET | 200 | 300 | 400 | 67% | 50% |\n"+
		"| 2 | GET | 1,000 (2 errors) | not measured | not measured | - | - |\n"+
		"\n"+
		"| server cores | case | server CPU µs per request: validated | --no-validation | baseline | validated / --no-validation | validated / baseline |\n"+
		"|---:|---|---:|---:|---:|---:|---:|\n"+
		"| 1 | GET | 50.0 | 45.0 | 40.0 | 90% | 80% |\n"+
		"| 2 | GET | not measured | not measured | not measured | - | - |\n"+
		"\n"+
		"- 1 server core: server on CPU 0, load generator on CPU 1.\n"+
		"- 2 server cores: server on CPUs 0-1, load generator on CPUs 0-1: it shares the server's cores, this machine has no core left for it.\n",
		b.String())
}
