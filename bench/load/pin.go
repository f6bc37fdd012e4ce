package load

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"

	"github.com/petstore/petstore/internal/words"
)

// Placement puts the server on cores of its own and the load generator (this process) on
// the others, as a server's users see it: their clients do not take the server's cores.
// Linux's taskset does the pinning; without it, the server's Go runtime is only limited to
// as many threads running Go code (GOMAXPROCS) and nothing is pinned.
type Placement struct {
	Server, Generator []int // CPU numbers
	// Shared says the generator runs on the server's cores too: there are not enough cores
	// for both to have their own.
	Shared bool
	// Taskset is the taskset binary; "" runs unpinned.
	Taskset string
}

// Place puts a server on the first n of cpus and the generator on the rest; when none is
// left, the generator runs on all of them (Shared). taskset is the binary that pins, or "".
func Place(cpus []int, n int, taskset string) (Placement, error) {
	if n < 1 || n > len(cpus) {
		return Placement{}, fmt.Errorf("%d server cores asked for, %d available (%s)", n, len(cpus), CPUList(cpus))
	}
	p := Placement{Server: cpus[:n], Generator: cpus[n:], Taskset: taskset}
	if len(p.Generator) == 0 {
		p.Generator, p.Shared = cpus, true
	}
	return p, nil
}

// Wrap returns the command line that runs argv as the server: under taskset on the server's
// cores, or unpinned with GOMAXPROCS set to their number.
func (p Placement) Wrap(argv []string) []string {
	if p.Taskset != "" {
		return append([]string{p.Taskset, "-c", CPUList(p.Server)}, argv...)
	}
	// env execs argv: the server keeps the process id the caller reads its memory by.
	return append([]string{"env", "GOMAXPROCS=" + strconv.Itoa(len(p.Server))}, argv...)
}

// PinGenerator moves every thread of this process to the generator's cores (threads made
// later inherit it) and sets GOMAXPROCS to their number. Unpinned, it changes nothing.
func (p Placement) PinGenerator() error {
	if p.Taskset == "" {
		return nil
	}
	out, err := exec.Command(p.Taskset, "-a", "-p", "-c", CPUList(p.Generator), strconv.Itoa(os.Getpid())).CombinedOutput()
	if err != nil {
		return fmt.Errorf("taskset: %v: %s", err, strings.TrimSpace(string(out)))
	}
	runtime.GOMAXPROCS(len(p.Generator))
	return nil
}

// String says where each runs, in the words of the table's notes.
func (p Placement) String() string {
	on := func(cpus []int) string { return words.Noun(len(cpus), "CPU") + " " + CPUList(cpus) }
	if p.Taskset == "" {
		return fmt.Sprintf("unpinned (taskset not found): server with GOMAXPROCS=%d, load generator anywhere", len(p.Server))
	}
	s := fmt.Sprintf("server on %s, load generator on %s", on(p.Server), on(p.Generator))
	if p.Shared {
		s += ": it shares the server's cores, this machine has no core left for it"
	}
	return s
}

// AllowedCPUs are the CPUs this process may run on (Cpus_allowed_list of /proc/self/status),
// or 0 .. NumCPU-1 where that cannot be read.
func AllowedCPUs() []int {
	if data, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
				if cpus, err := ParseCPUList(strings.TrimSpace(v)); err == nil && len(cpus) > 0 {
					return cpus
				}
			}
		}
	}
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return cpus
}

// ParseCPUList reads a list such as "0-3,6" (taskset's and the kernel's format).
func ParseCPUList(s string) ([]int, error) {
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || a < 0 || b < a {
			return nil, fmt.Errorf("CPU list %q: bad part %q", s, part)
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	return out, nil
}

// CPUList writes cpus (ascending) in the list format, runs as ranges: "0-3,6".
func CPUList(cpus []int) string {
	var parts []string
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", cpus[i], cpus[j]))
		} else {
			parts = append(parts, strconv.Itoa(cpus[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}
