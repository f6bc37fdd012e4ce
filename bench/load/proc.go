package load

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc is a server started as a subprocess on a loopback port.
type Proc struct {
	cmd    *exec.Cmd
	URL    string        // http://127.0.0.1:PORT
	Ready  time.Duration // from the start of the process until readyPath answered
	out    *os.File      // the process's stdout and stderr (its access log: a file costs us no CPU)
	exited chan struct{}
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Start runs argv with the port in place of every "{port}" and waits until GET readyPath
// answers with any status below 500 (a mock without a health endpoint may answer 401), or
// until timeout.
func Start(ctx context.Context, argv []string, readyPath string, timeout time.Duration) (*Proc, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	args := make([]string, len(argv))
	for i, a := range argv {
		args[i] = strings.ReplaceAll(a, "{port}", strconv.Itoa(port))
	}
	out, err := os.CreateTemp("", "load-server-*.log")
	if err != nil {
		return nil, err
	}
	p := &Proc{URL: fmt.Sprintf("http://127.0.0.1:%d", port), out: out, exited: make(chan struct{})}
	p.cmd = exec.Command(args[0], args[1:]...)
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // Stop ends its children too
	start := time.Now()
	if err := p.cmd.Start(); err != nil {
		p.cleanup()
		return nil, fmt.Errorf("start %s: %w", args[0], err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-p.exited:
			msg := p.Output()
			p.cleanup()
			return nil, fmt.Errorf("%s exited before it was ready: %s", args[0], msg)
		case <-ctx.Done():
			p.Stop()
			return nil, ctx.Err()
		default:
		}
		if resp, err := client.Get(p.URL + readyPath); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode < 500 {
				p.Ready = time.Since(start)
				return p, nil
			}
		}
		if time.Now().After(deadline) {
			msg := p.Output()
			p.Stop()
			return nil, fmt.Errorf("%s not ready within %v: %s", args[0], timeout, msg)
		}
		time.Sleep(time.Millisecond) // polling a subprocess: there is nothing to wait on
	}
}

// PID is the process id.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Stop ends the process group with SIGTERM, then SIGKILL after two seconds.
func (p *Proc) Stop() {
	pgid := -p.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-p.exited
	}
	p.cleanup()
}

func (p *Proc) cleanup() {
	p.out.Close()
	os.Remove(p.out.Name())
}

// Output returns the last 2 KB the process wrote.
func (p *Proc) Output() string {
	data, _ := os.ReadFile(p.out.Name())
	if len(data) > 2048 {
		data = data[len(data)-2048:]
	}
	return strings.TrimSpace(string(data))
}

// Memory is what /proc/PID/status says about a process's resident memory, in bytes.
type Memory struct {
	RSS  int64 // VmRSS: now
	Peak int64 // VmHWM: the high-water mark since the process started
}

// ReadMemory reads /proc/PID/status.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, err
	}
	defer f.Close()
	return parseStatus(f)
}

func parseStatus(r io.Reader) (Memory, error) {
	var m Memory
	found := 0
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmRSS" && key != "VmHWM") {
			continue
		}
		fields := strings.Fields(val)
		if len(fields) != 2 || fields[1] != "kB" {
			return m, fmt.Errorf("status: unexpected %s line %q", key, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return m, fmt.Errorf("status: %s: %w", key, err)
		}
		if key == "VmRSS" {
			m.RSS = kb << 10
		} else {
			m.Peak = kb << 10
		}
		found++
	}
	if err := sc.Err(); err != nil {
		return m, err
	}
	if found != 2 {
		return m, errors.New("status: no VmRSS and VmHWM lines (not Linux?)")
	}
	return m, nil
}

// ProcessCPU is the CPU time a process has used, user and system (/proc/PID/stat).
func ProcessCPU(pid int) (time.Duration, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStat(string(data))
}

// clockTicks is the unit of /proc/PID/stat's times (USER_HZ, 100 on Linux).
const clockTicks = 100

func parseStat(stat string) (time.Duration, error) {
	// The command name, in parentheses, may hold spaces: the fields that count follow it.
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, errors.New("stat: no command name")
	}
	f := strings.Fields(stat[end+1:])
	if len(f) < 13 {
		return 0, errors.New("stat: too few fields")
	}
	var ticks int64
	for _, v := range f[11:13] { // utime and stime, fields 14 and 15
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("stat: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}

// selfCPU is the CPU time this process has used, user and system.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
